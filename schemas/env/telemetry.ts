/**
 * Logs, metrics and traces: the log level and format, the workers' /metrics and its token, and what traced model calls carry.
 * Part of `ConfigSchema` (schemas/config.ts), under "Logs, metrics and traces" in docs/reference/configuration.md.
 */
import { z } from 'zod';
import { bool, port } from './values';

/** The logs, metrics and traces variables. */
export const TELEMETRY_ENV = {
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe("pino level of the API, the worker and the SDK's own lines"),
  DELEGATE_LOG_FORMAT: z
    .enum(['pretty', 'json'])
    .default('pretty')
    .describe("npm start: pretty-print the processes' JSON log lines, or pass them through as they are"),
  DELEGATE_WORKER_METRICS_PORT: port.default(9464).describe("port of the worker's Prometheus /metrics (on HOST); 0 turns it off"),
  DELEGATE_METRICS_TOKEN: z
    .string()
    .min(16)
    .optional()
    .describe('bearer token Prometheus must send to /metrics of the API and the worker (unset: open)'),
  DELEGATE_OTEL_CAPTURE_CONTENT: bool
    .default(false)
    .describe("traced workers: put LLM agents' prompts and completions in their model-call spans (they may hold anything a tenant sent)"),
  DELEGATE_OTEL_GENAI_COST: bool
    .default(false)
    .describe(
      'traced workers: the GenAI cost attributes still under review (gen_ai.usage.cost.amount, currency, source) on model-call spans',
    ),
};
