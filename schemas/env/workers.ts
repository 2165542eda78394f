/**
 * The workers: the agent pools a worker hosts and its slots, its workflow code's stack depth, the remote agents' circuit breakers, and the audit log of steps.
 * Part of `ConfigSchema` (schemas/config.ts), under "Workers" in docs/reference/configuration.md.
 */
import { z } from 'zod';
import { bool } from './values';
import { DEFAULT_WORKFLOW_STACK_FRAMES } from '../../core/engine-limits';
import { DEFAULT_POOL_SLOTS, PoolsEnvSchema } from '../pools';

/** The workers variables. */
export const WORKERS_ENV = {
  DELEGATE_POOLS: PoolsEnvSchema.optional().describe(
    `pool=steps pairs ("gpu=4,cheap=16"): the agent pools this worker hosts on every lane and the concurrent steps of each; unset: every pool of the agents file, ${DEFAULT_POOL_SLOTS} steps each`,
  ),
  DELEGATE_POOLS_ONLY: bool
    .default(false)
    .describe('the worker hosts only its pools (DELEGATE_POOLS): no workflows, no shared queue, no lanes; e.g. a GPU box'),
  DELEGATE_WORKER_SLOTS: z.coerce
    .number()
    .int()
    .positive()
    .max(10_000)
    .default(200)
    .describe('concurrent agent steps of the shared lane (jobs started without a tenant lane)'),
  DELEGATE_WORKFLOW_STACK_FRAMES: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(DEFAULT_WORKFLOW_STACK_FRAMES)
    .describe(
      "frames a stack trace keeps in the workers' workflow code (the UI's Stack Trace tab, a workflow error's stack): each frame costs every promise a workflow makes; V8's default is 10",
    ),
  DELEGATE_BREAKER_FAILURES: z.coerce
    .number()
    .int()
    .positive()
    .max(10_000)
    .default(5)
    .describe("failed steps in a row, on any worker, that open a remote agent's circuit"),
  DELEGATE_BREAKER_COOLDOWN_SECONDS: z.coerce
    .number()
    .positive()
    .max(86_400)
    .default(30)
    .describe('how long an open circuit refuses steps before one trial step goes through'),
  DELEGATE_STEP_LOG: z.string().min(1).optional().describe('append-only file of completed agent steps (audits, chaos tests)'),
};
