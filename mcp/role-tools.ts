/**
 * The coordinator's tools per specialist role: one `delegate_<role>` tool for every role of the
 * agents file. The role fixes the label, persona, agent (its provider), depth cap, output kinds
 * and tool allowlist; the call gives only the dynamic part of the task, which the host holds
 * back until the child's `delegation_bootstrap`. Listed only when roles are configured.
 *
 *   delegate_<role>(taskType, question, constraints, …) ──one role task──> job ──result──> the role's checked output
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { RoleEntry } from 'delegate/client';
import { z } from 'zod';
import { JobSpecSchema, TaskSpecSchema, type JobResult, type JobSpec } from '../schemas';
import { resultUri } from './answers';
import { APPROVAL_TOOL_DOCS } from './approval-tools';
import type { DelegateBackend } from './backend';
import { taskIdOf } from './task-store';
import type { enableTasks } from './tasks';
import { describeKinds, roleToolDoc, TOOL_DOCS } from './tool-docs';
import { failed, tool, type ToolExtra } from './tool-helpers';

/** Waits for a job's result as the pattern tools do, answering with `answer` once it is done. */
export type AwaitJob = (
  jobId: string,
  waitSeconds: number,
  extra: ToolExtra,
  answer: (jobId: string, result: JobResult) => CallToolResult,
) => Promise<CallToolResult>;

/** The id of the one task a role tool submits. */
const TASK_ID = 'task';

const task = TaskSpecSchema.shape;
/** What a role tool takes: the task's dynamic part, an optional job id and budget, and how long to wait. */
function roleInputShape(role: RoleEntry) {
  const types = Object.keys(role.outputKinds) as [string, ...string[]];
  return {
    taskType: z.enum(types).describe(`the task type, with its allowed output kinds: ${describeKinds(role.outputKinds)}`),
    question: task.question.describe('the one specific question or assignment'),
    constraints: task.constraints.describe('constraints the child must respect'),
    completionCriteria: task.completionCriteria,
    authority: task.authority,
    subject: task.subject,
    rationale: task.rationale.describe('why it matters for your goal'),
    jobId: JobSpecSchema.shape.jobId.describe('client-chosen id: the same id is the same job, never a second one'),
    budget: JobSpecSchema.shape.budget,
    waitSeconds: z
      .number()
      .min(0)
      .max(3600)
      .default(45)
      .describe('longest wait for the result (default 45); a job still running then keeps running: job_result follows it'),
  };
}

/** The job one role-tool call submits, or the tool error that lists what is wrong with it. */
function roleSpec(role: RoleEntry, args: Record<string, unknown>): { spec: JobSpec } | { error: CallToolResult } {
  const { jobId, budget, waitSeconds: _wait, ...dynamic } = args as { jobId?: string; budget?: object; waitSeconds?: number };
  const parsed = JobSpecSchema.safeParse({
    ...(jobId ? { jobId } : {}),
    pattern: 'fanout',
    ...(budget ? { budget } : {}),
    labels: { role: role.id },
    tasks: [{ id: TASK_ID, role: role.id, ...dynamic }],
  });
  if (parsed.success) return { spec: parsed.data };
  const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`);
  return { error: failed([`Invalid ${role.id} task:`, ...lines].join('\n')) };
}

/** A role task's answer: the checked output (`{ result }`), what the host observed, and the job for follow-ups. */
export function roleAnswer(jobId: string, result: JobResult): CallToolResult {
  const t = result.results.find((r) => r.id === TASK_ID) ?? result.results[0];
  const body = t
    ? {
        jobId,
        status: t.status,
        failureReason: t.failureReason,
        output: t.data ?? null,
        role: t.role,
        followUps: t.followUps,
        errors: t.errors,
        metrics: t.metrics,
      }
    : { jobId, status: result.status };
  return {
    content: [
      { type: 'text', text: JSON.stringify(body, null, 2) },
      { type: 'resource_link', uri: resultUri(jobId), name: `${jobId} result`, mimeType: 'application/json' },
    ],
  };
}

/** The tool name of a role; a role whose name is already one of the server's tools gets none (e.g. a role "fanout"). */
export function roleToolName(role: Pick<RoleEntry, 'id'>): string | undefined {
  const name = `delegate_${role.id}`;
  return name in TOOL_DOCS || name in APPROVAL_TOOL_DOCS ? undefined : name;
}

/** Registers `delegate_<role>` for every role (none when `roles` is empty). */
export function registerRoleTools(
  backend: DelegateBackend,
  tasks: ReturnType<typeof enableTasks>,
  roles: readonly RoleEntry[],
  awaitJob: AwaitJob,
): void {
  for (const role of roles) {
    const name = roleToolName(role);
    if (!name) continue;
    tasks.register(
      name,
      { description: roleToolDoc(role), inputSchema: roleInputShape(role) },
      tool(async (args: Record<string, unknown>, extra) => {
        const built = roleSpec(role, args);
        if ('error' in built) return built.error;
        const sub = await backend.submit(built.spec);
        return awaitJob(sub.jobId, (args.waitSeconds as number | undefined) ?? 45, extra, roleAnswer);
      }),
      async (args) => {
        const built = roleSpec(role, args);
        return 'error' in built ? built.error : taskIdOf('job', (await backend.submit(built.spec)).jobId);
      },
    );
  }
}
