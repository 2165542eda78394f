/**
 * The `job_replay` tool: a finished job's subtasks again on another agent or model, and the
 * comparison of the two runs once the replay is done (POST /v1/jobs/:jobId/replay, then
 * GET /v1/jobs/:replayId/comparison).
 *
 *   job_replay ──backend.replay──> replay job ──comparison, waiting up to waitSeconds──> comparison | { jobId, state: running }
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ReplayRequestSchema } from '../schemas/replay';
import type { DelegateBackend } from './backend';
import { listing } from './tool-docs';
import { invalid, json, POLL_SECONDS, tool, waitFor } from './tool-helpers';
import { OUTPUT, replayInput } from './tool-schemas';

/** What job_replay takes (replayInput). */
type ReplayArgs = { jobId: string; agent?: string; model?: string; tasks?: string[]; replayId?: string; waitSeconds: number };

/** Registers `job_replay` on the server. */
export function registerReplayTool(server: McpServer, backend: DelegateBackend): void {
  server.registerTool(
    'job_replay',
    listing('job_replay', replayInput, OUTPUT.replay),
    tool(async ({ jobId, replayId, waitSeconds, ...rest }: ReplayArgs, extra) => {
      const parsed = ReplayRequestSchema.safeParse({ ...rest, ...(replayId ? { jobId: replayId } : {}) });
      if (!parsed.success) return invalid('replay', parsed.error.issues);
      const sub = await backend.replay(jobId, parsed.data);
      const deadline = Date.now() + waitSeconds * 1000;
      const poll = (seconds: number) => backend.comparison(sub.jobId, seconds);
      const comparison = await waitFor(await poll(Math.min(waitSeconds, POLL_SECONDS)), poll, (c) => c !== undefined, deadline, extra);
      if (comparison) return json({ ...comparison, state: 'completed' });
      return json({ jobId: sub.jobId, replayOf: sub.replayOf, replayId: sub.jobId, state: 'running' });
    }),
  );
}
