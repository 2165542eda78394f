import { z } from 'zod';
import { EvidenceSchema } from './evidence';
import { RetrySchema } from './job';

/** An agent's declared identity, capabilities, contract and limits. */
export const AgentManifestSchema = z
  .object({
    id: z.string().min(1),
    version: z.string().min(1),
    description: z.string(),
    kind: z.enum(['builtin', 'http', 'llm']),
    capabilities: z.array(z.string()),
    inputSchema: z.record(z.string(), z.unknown()).describe('JSON Schema of params'),
    outputSchema: z.record(z.string(), z.unknown()).optional().describe('JSON Schema of result data'),
    limits: z.object({
      timeoutSeconds: z.number().positive().describe('default per-attempt limit of one step'),
      maxSteps: z.number().int().positive(),
    }),
    retry: RetrySchema.describe('default retry policy of one step'),
    tools: z.array(z.string()),
  })
  .meta({ id: 'AgentManifest' });
export type AgentManifest = z.infer<typeof AgentManifestSchema>;

/** One agent served over HTTP: Delegate POSTs each step to `url` and expects a step reply. */
export const HttpAgentConfigSchema = z
  .strictObject({
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/),
    version: z.string().min(1).default('1.0.0'),
    description: z.string().default(''),
    url: z.url({ protocol: /^https?$/ }),
    headers: z.record(z.string(), z.string()).default({}).describe('sent with every step; "${VAR}" is read from the environment'),
    capabilities: z.array(z.string()).default([]),
    inputSchema: z.record(z.string(), z.unknown()).default({ type: 'object' }).describe('JSON Schema of params'),
    outputSchema: z.record(z.string(), z.unknown()).optional(),
    timeoutSeconds: z.number().positive().max(86_400).default(60),
    maxSteps: z.number().int().positive().max(100_000).default(50),
    retry: RetrySchema.default({ maxAttempts: 3, initialIntervalSeconds: 1, backoffCoefficient: 2, maximumIntervalSeconds: 30 }),
    tools: z.array(z.string()).default([]).describe('tools the agent may call; a task must allow them in scope'),
  })
  .meta({ id: 'HttpAgentConfig' });
export type HttpAgentConfig = z.infer<typeof HttpAgentConfigSchema>;

/** The agents file (`DELEGATE_AGENTS_FILE`, default `agents.json`). */
export const AgentsFileSchema = z.strictObject({ agents: z.array(HttpAgentConfigSchema) });

/** What an HTTP agent answers to one step (the agent protocol). */
export const StepReplySchema = z
  .object({
    done: z.boolean(),
    usage: z
      .object({ costUsd: z.number().finite().nonnegative().optional(), tokens: z.number().int().nonnegative().optional(), toolCalls: z.number().int().nonnegative().optional() })
      .optional(),
    summary: z.string().max(100_000).optional(),
    data: z.unknown().optional(),
    confidence: z.number().min(0).max(1).optional(),
    evidence: z.array(EvidenceSchema).max(1000).optional(),
    citations: z.array(z.string()).max(1000).optional(),
    followUps: z.array(z.string()).max(1000).optional(),
    channelsHit: z.array(z.string()).max(100).optional(),
    state: z.unknown().optional(),
  })
  .meta({ id: 'StepReply' });
