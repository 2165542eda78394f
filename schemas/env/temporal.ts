/**
 * The Temporal connection (the standard `TEMPORAL_*` variables), the workflows' task queue, and the dev server's Web UI.
 * Part of `ConfigSchema` (schemas/config.ts), under "Temporal" in docs/reference/configuration.md.
 */
import { z } from 'zod';
import { bool } from './values';

/** The temporal variables. */
export const TEMPORAL_ENV = {
  TEMPORAL_ADDRESS: z
    .string()
    .min(1)
    .default('localhost:7233')
    .describe('host:port of the Temporal frontend; when set, `npm start` starts no dev server'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default').describe('the Temporal namespace of jobs, subtasks and breakers'),
  TEMPORAL_TLS: bool.default(false).describe('use TLS (implied by TEMPORAL_API_KEY; Temporal Cloud)'),
  TEMPORAL_API_KEY: z.string().min(1).optional().describe('Temporal Cloud API key (turns TLS on)'),
  TEMPORAL_UI_URL: z.url().default('http://localhost:8233').describe('base URL of the Temporal Web UI, for the links the API returns'),
  DELEGATE_TASK_QUEUE: z
    .string()
    .min(1)
    .default('delegate')
    .describe('task queue of the workflows and the builtin agents; tenant lanes are `<queue>-agents-<tenant>`'),
  DELEGATE_TEMPORAL_UI_WRITES: bool
    .default(false)
    .describe(
      "npm start: the dev server's Web UI may terminate, cancel, signal, reset and start workflows (default: it only reads and queries; anyone on the machine reaches it without a credential)",
    ),
};
