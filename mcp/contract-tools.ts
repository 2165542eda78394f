/**
 * The field's two delegation contracts as MCP tools: a subtask in the research-subtask
 * contract (its output back), and the read-only code scout (its report back). Each waits up
 * to waitSeconds in long polls; one still running answers where to follow it.
 *
 *   delegate_research_subtask ──runResearchSubtask──> output | running ──research_subtask_result(jobId)──> output
 *   delegate_scout ──dispatchScout──> scout(id, wait) ──> report | dispatched ──scout_report(id)──> report
 *   scout_prep ──> id, prompt, tools ── the harness's own sub-agent ── scout_submit_report(id, report) ──> committed | invalid (one retry)
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ResearchSubtaskInputSchema } from '../schemas/research-contract';
import { ScoutIdSchema, ScoutRequestSchema } from '../schemas/scout';
import { scoutAnswer, subtaskAnswer } from './answers';
import type { DelegateBackend } from './backend';
import { taskIdOf } from './task-store';
import type { enableTasks } from './tasks';
import { listing } from './tool-docs';
import { invalid, json, POLL_SECONDS, tool, waitFor } from './tool-helpers';
import { idArg, OUTPUT, researchInput, scoutRequestShape, waitArg } from './tool-schemas';

/** Registers a tool for plain and task-augmented calls. */
type TaskTools = ReturnType<typeof enableTasks>;

/** Registers delegate_research_subtask, research_subtask_result, delegate_scout, scout_report, scout_prep and scout_submit_report. */
export function registerContractTools(server: McpServer, backend: DelegateBackend, tasks: TaskTools): void {
  tasks.register(
    'delegate_research_subtask',
    listing('delegate_research_subtask', researchInput, OUTPUT.research),
    tool(async (args: Record<string, unknown>, extra) => {
      const { waitSeconds: wait, ...rest } = args as { waitSeconds: number };
      // the contract's cross-field rules (stop conditions, output_schema, params) on top of the per-field ones
      const parsed = ResearchSubtaskInputSchema.safeParse(rest);
      if (!parsed.success) return invalid('research subtask', parsed.error.issues);
      const deadline = Date.now() + wait * 1000;
      const first = await backend.runResearchSubtask(parsed.data, Math.min(wait, POLL_SECONDS));
      const answer =
        first.status === 'running'
          ? await waitFor(
              first,
              (s) => backend.researchSubtask(first.job_id, s),
              (a) => a.status !== 'running',
              deadline,
              extra,
            )
          : first;
      return subtaskAnswer(answer);
    }),
    async ({ waitSeconds: _wait, ...rest }) => {
      const parsed = ResearchSubtaskInputSchema.safeParse(rest);
      if (!parsed.success) return invalid('research subtask', parsed.error.issues);
      const first = await backend.runResearchSubtask(parsed.data, 0);
      return taskIdOf('research', first.status === 'running' ? first.job_id : first.delegate.job_id!);
    },
  );

  server.registerTool(
    'research_subtask_result',
    listing(
      'research_subtask_result',
      { jobId: idArg('the job_id delegate_research_subtask returned'), waitSeconds: waitArg(0, 60) },
      OUTPUT.research,
    ),
    tool(async ({ jobId, waitSeconds: wait }: { jobId: string; waitSeconds: number }) =>
      subtaskAnswer(await backend.researchSubtask(jobId, wait)),
    ),
  );

  tasks.register(
    'delegate_scout',
    listing('delegate_scout', { ...scoutRequestShape, agent: z.string().optional(), waitSeconds: waitArg(45, 3600) }, OUTPUT.scout),
    tool(async (args: Record<string, unknown>, extra) => {
      const { waitSeconds: wait, agent, ...rest } = args as { waitSeconds: number; agent?: string };
      const parsed = ScoutRequestSchema.safeParse(rest);
      if (!parsed.success) return invalid('scout request', parsed.error.issues);
      const deadline = Date.now() + wait * 1000;
      const d = await backend.dispatchScout({ ...parsed.data, ...(agent ? { agent } : {}) });
      const first = await backend.scout(d.id, Math.min(wait, POLL_SECONDS));
      return scoutAnswer(
        await waitFor(
          first,
          (s) => backend.scout(d.id, s),
          (s) => s.state !== 'dispatched',
          deadline,
          extra,
        ),
      );
    }),
    async ({ waitSeconds: _wait, agent, ...rest }) => {
      const parsed = ScoutRequestSchema.safeParse(rest);
      if (!parsed.success) return invalid('scout request', parsed.error.issues);
      const d = await backend.dispatchScout({ ...parsed.data, ...(agent ? { agent: agent as string } : {}) });
      return taskIdOf('scout', d.id);
    },
  );

  server.registerTool(
    'scout_report',
    listing('scout_report', { id: ScoutIdSchema, waitSeconds: waitArg(0, 60) }, OUTPUT.scout),
    tool(async ({ id, waitSeconds: wait }: { id: string; waitSeconds: number }) => scoutAnswer(await backend.scout(id, wait))),
  );

  server.registerTool(
    'scout_prep',
    listing('scout_prep', scoutRequestShape, OUTPUT.prep),
    tool(async (args: Record<string, unknown>) => {
      const parsed = ScoutRequestSchema.safeParse(args);
      if (!parsed.success) return invalid('scout request', parsed.error.issues);
      return json(await backend.prepHarnessScout(parsed.data));
    }),
  );

  server.registerTool(
    'scout_submit_report',
    listing(
      'scout_submit_report',
      {
        id: ScoutIdSchema,
        report: z.looseObject({}).describe('the JSON your sub-agent wrote'),
        validateOnly: z.boolean().default(false).describe('check only; commit nothing'),
      },
      OUTPUT.outcome,
    ),
    tool(async ({ id, report, validateOnly }: { id: string; report: Record<string, unknown>; validateOnly: boolean }) =>
      json(await backend.reportScout(id, report, validateOnly)),
    ),
  );
}
