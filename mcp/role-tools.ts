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
import { JobSpecSchema, type JobResult, type JobSpec } from '../schemas';
import { withResultLink } from './answers';
import type { DelegateBackend } from './backend';
import { taskIdOf } from './task-store';
import type { enableTasks } from './tasks';
import { ROLE_HINTS, roleToolDoc, roleToolSummary, TOOL_DOCS } from './tool-docs';
import { invalid, json, tool, type ToolExtra } from './tool-helpers';
import type { ToolReference } from './tool-reference';
import { budgetArg, listed, OUTPUT, waitArg } from './tool-schemas';

/** Waits for a job's result as the pattern tools do, answering with `answer` once it is done. */
export type AwaitJob = (
  jobId: string,
  waitSeconds: number,
  extra: ToolExtra,
  answer: (jobId: string, result: JobResult) => CallToolResult,
) => Promise<CallToolResult>;

/** The id of the one task a role tool submits. */
const TASK_ID = 'task';

/**
 * What a role tool takes: the task's dynamic part, an optional job id and budget, and how long to
 * wait. Compact as the other tools' listings (tool-schemas.ts): `roleSpec` checks the task in full.
 */
function roleInputShape(role: RoleEntry) {
  const types = Object.keys(role.outputKinds) as [string, ...string[]];
  const texts = z.array(z.string()).optional();
  return {
    taskType: z.enum(types),
    question: z.string(),
    constraints: texts,
    completionCriteria: texts.describe('review: when the child is done'),
    authority: z.string().optional().describe('what the child may decide'),
    subject: z.string().optional().describe('review: what it reviews'),
    rationale: z.string().optional(),
    jobId: z.string().optional().describe('same id, same job'),
    budget: budgetArg().optional(),
    waitSeconds: waitArg(45, 3600),
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
  return parsed.success ? { spec: parsed.data } : { error: invalid(`${role.id} task`, parsed.error.issues) };
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
  return withResultLink(json(body), jobId);
}

/** The tool name of a role; a role whose name is already one of the server's tools gets none (e.g. a role "fanout"). */
export function roleToolName(role: Pick<RoleEntry, 'id'>): string | undefined {
  const name = `delegate_${role.id}`;
  return name in TOOL_DOCS ? undefined : name;
}

/** Registers `delegate_<role>` for every role (none when `roles` is empty); answers each one's reference. */
export function registerRoleTools(
  backend: DelegateBackend,
  tasks: ReturnType<typeof enableTasks>,
  roles: readonly RoleEntry[],
  awaitJob: AwaitJob,
): [name: string, ToolReference][] {
  const references: [string, ToolReference][] = [];
  for (const role of roles) {
    const name = roleToolName(role);
    if (!name) continue;
    references.push([name, { text: roleToolDoc(role) }]);
    tasks.register(
      name,
      {
        description: roleToolSummary(name, role),
        inputSchema: listed(roleInputShape(role)),
        annotations: ROLE_HINTS,
        outputSchema: OUTPUT.role,
      },
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
  return references;
}
