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
import { invalid, json, tool } from './tool-helpers';
import { OUTPUT, replayInput } from './tool-schemas';

/** Longest single wait for the comparison (the API's long poll); a longer waitSeconds polls again. */
const POLL = 60;

/** Registers `job_replay` on the server. */
export function registerReplayTool(server: McpServer, backend: DelegateBackend): void {
  server.registerTool(
    'job_replay',
    listing('job_replay', replayInput, OUTPUT.replay),
    tool(async (args: { jobId: string; agent?: string; model?: string; tasks?: string[]; replayId?: string; waitSeconds: number }) => {
      const { jobId, replayId, waitSeconds, ...rest } = args;
      const parsed = ReplayRequestSchema.safeParse({ ...rest, ...(replayId ? { jobId: replayId } : {}) });
      if (!parsed.success) return invalid('replay', parsed.error.issues);
      const sub = await backend.replay(jobId, parsed.data);
      const deadline = Date.now() + waitSeconds * 1000;
      for (;;) {
        const left = Math.max(0, (deadline - Date.now()) / 1000);
        const comparison = await backend.comparison(sub.jobId, Math.min(POLL, left));
        if (comparison) return json({ ...comparison, state: 'completed' });
        if (Date.now() >= deadline) return json({ jobId: sub.jobId, replayOf: sub.replayOf, replayId: sub.jobId, state: 'running' });
      }
    }),
  );
}
