/**
 * The limits of a job and its steps: nesting depth, how long a job and one step may take, and how wide a fan-out runs flat.
 * Part of `ConfigSchema` (schemas/config.ts), under "Jobs" in docs/reference/configuration.md.
 */
import { z } from 'zod';
import { FANOUT_FLAT_MAX_CLUSTER, FANOUT_FLAT_MAX_DEV_SERVER } from '../../core/engine-limits';

/** The jobs variables. */
export const JOBS_ENV = {
  DELEGATE_MAX_DEPTH: z.coerce.number().int().min(0).max(10).default(3).describe('levels of nested jobs below the root'),
  DELEGATE_JOB_MAX_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .max(31_536_000)
    .default(86_400)
    .describe('longest a job runs; then running subtasks return timeout with their work'),
  DELEGATE_STEP_CEILING_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .max(31_536_000)
    .default(86_400)
    .describe("ceiling on one step's worst case (timeout × attempts + backoff); larger tasks get 422"),
  DELEGATE_STEP_SCHEDULE_TIMEOUT_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(31_536_000)
    .default(300)
    .describe('longest a step waits for a worker to start it (schedule-to-start); then the subtask ends agent_unavailable; 0: no bound'),
  DELEGATE_FANOUT_FLAT_MAX: z.coerce
    .number()
    .int()
    .min(FANOUT_FLAT_MAX_CLUSTER)
    .max(FANOUT_FLAT_MAX_DEV_SERVER)
    .default(FANOUT_FLAT_MAX_CLUSTER)
    .describe(
      'a fan-out of at most this many tasks runs flat in its job, one of more (to 500) as a tree of batches: 100 on a sharded cluster (one parent per 400 children queues on its lock), 500 on the single-shard dev server (`npm start` sets it)',
    ),
};
