import { z } from 'zod';
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
