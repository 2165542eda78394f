/**
 * The research-subtask contract through the client: one snake_case subtask in, the contract's
 * output back, or where it runs when the wait was shorter than the subtask.
 *
 *   run(input, { waitSeconds }) ──POST /v1/subtasks──> output (200) | running (202) ──get(job_id)──> output
 */
import type { createTransport } from './http.js';
import { longPoll, MAX_WAIT_SECONDS } from './long-poll.js';
import type { ResearchSubtaskOutput, ResearchSubtaskRequest, ResearchSubtaskRunning } from './types.js';

/** Options of `subtasks.run`. */
export interface SubtaskRunOptions {
  /** Wait this long for the output (long polls of at most 60 s); a subtask still running then answers `status: 'running'`. @default 0 */
  waitSeconds?: number;
  /** The same key (and input) never starts a second job; it also makes the call safe to retry. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/** A research subtask's output, or where it still runs: tell them apart by `status === 'running'`. */
export type ResearchSubtaskAnswer = ResearchSubtaskOutput | ResearchSubtaskRunning;

/** The `subtasks` methods of a client over `request`. */
export function subtaskMethods(request: ReturnType<typeof createTransport>) {
  const path = (jobId: string) => `/v1/subtasks/${encodeURIComponent(jobId)}`;
  const methods = {
    /** Runs one subtask written in the research-subtask contract; sent once unless an idempotency key makes a repeat harmless. */
    async run(input: ResearchSubtaskRequest, opts: SubtaskRunOptions = {}): Promise<ResearchSubtaskAnswer> {
      const wait = opts.waitSeconds ?? 0;
      const headers = opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : undefined;
      const began = Date.now();
      const first = await request<ResearchSubtaskAnswer>('POST', '/v1/subtasks', {
        query: { waitSeconds: Math.min(wait, MAX_WAIT_SECONDS) },
        body: input,
        headers,
        idempotent: Boolean(opts.idempotencyKey),
        signal: opts.signal,
      });
      const left = wait - (Date.now() - began) / 1000;
      if (first.body.status !== 'running' || left <= 0) return first.body;
      return methods.get(first.body.job_id, { waitSeconds: left, signal: opts.signal });
    },

    /** A research subtask's output by its job id, waiting up to `waitSeconds` (default 0) while it runs. */
    async get(jobId: string, opts: { waitSeconds?: number; signal?: AbortSignal } = {}): Promise<ResearchSubtaskAnswer> {
      return longPoll(
        opts.waitSeconds ?? 0,
        async (waitSeconds) =>
          (await request<ResearchSubtaskAnswer>('GET', path(jobId), { query: { waitSeconds }, idempotent: true, signal: opts.signal }))
            .body,
        (a) => a.status !== 'running',
      );
    },
  };
  return methods;
}
