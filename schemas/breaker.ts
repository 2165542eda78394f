/**
 * The durable circuit breaker's contract: one breaker per remote agent, shared by every
 * worker (an entity workflow `breaker/<agentId>`), and how the API shows it.
 */
import { z } from 'zod';
import { AgentManifestSchema } from './agent';

/** Where an agent's circuit stands: `half_open` once the cool-down is over, until a trial step decides. */
export const CircuitStateSchema = z.enum(['closed', 'open', 'half_open']);
export type CircuitState = z.infer<typeof CircuitStateSchema>;

/** The breaker's last recorded failure. */
export const BreakerFailureSchema = z.object({
  at: z.string().describe('ISO 8601: when the failed step ended'),
  error: z.string().optional().describe('what the step said, redacted and cut to 300 characters'),
});

/** An agent's breaker as the API shows it (GET /v1/agents/:id). */
export const BreakerViewSchema = z
  .object({
    state: CircuitStateSchema,
    consecutiveFailures: z.number().int().min(0).describe('failed steps in a row (any worker)'),
    failureThreshold: z.number().int().positive().describe('failures in a row that open the circuit (DELEGATE_BREAKER_FAILURES)'),
    cooldownSeconds: z.number().positive().describe('how long an open circuit refuses steps (DELEGATE_BREAKER_COOLDOWN_SECONDS)'),
    openedAt: z.string().optional(),
    openUntil: z.string().optional().describe('open: steps are refused until then; after it one trial step goes through'),
    lastFailure: BreakerFailureSchema.optional(),
  })
  .meta({ id: 'BreakerView' });
export type BreakerView = z.infer<typeof BreakerViewSchema>;

/** The breaker's settings: the workflow's input, and on every outcome (a changed config applies at once). */
export const BreakerSettingsSchema = z.object({
  failures: z.number().int().positive(),
  cooldownMs: z.number().int().positive(),
});
export type BreakerSettings = z.infer<typeof BreakerSettingsSchema>;

/** Defaults of the breaker's settings (DELEGATE_BREAKER_FAILURES, DELEGATE_BREAKER_COOLDOWN_SECONDS). */
export const DEFAULT_BREAKER_SETTINGS: BreakerSettings = { failures: 5, cooldownMs: 30_000 };

/** The breaker's settings as the deployment's configuration gives them (the API and the workers must agree). */
export function breakerSettingsOf(config: {
  DELEGATE_BREAKER_FAILURES: number;
  DELEGATE_BREAKER_COOLDOWN_SECONDS: number;
}): BreakerSettings {
  return { failures: config.DELEGATE_BREAKER_FAILURES, cooldownMs: Math.round(config.DELEGATE_BREAKER_COOLDOWN_SECONDS * 1000) };
}

/** GET /v1/agents/:id: the manifest and, for a remote agent, its circuit breaker (builtin agents have none: `null`). */
export const AgentDetailSchema = AgentManifestSchema.extend({
  breaker: BreakerViewSchema.nullable().describe('null for builtin agents: they run in the worker and are never cut off'),
}).meta({ id: 'AgentDetail' });
export type AgentDetail = z.infer<typeof AgentDetailSchema>;
