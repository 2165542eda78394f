import { z } from 'zod';
import type { AgentDefinition } from './types';

const EchoParams = z.strictObject({});

/** `echo`: answers with the question itself, in one step. */
export const echoAgent: AgentDefinition = {
  manifest: {
    id: 'echo',
    version: '1.0.0',
    description: 'Returns the question as the answer. Useful to check the plumbing.',
    kind: 'builtin',
    capabilities: ['echo'],
    inputSchema: z.toJSONSchema(EchoParams) as Record<string, unknown>,
    limits: { timeoutSeconds: 10, maxSteps: 1 },
    retry: { maxAttempts: 3, initialIntervalSeconds: 1, backoffCoefficient: 2, maximumIntervalSeconds: 10 },
    tools: [],
  },
  params: EchoParams,
  async step({ task }) {
    return { done: true, summary: task.question, data: task.question, confidence: 1, channelsHit: ['echo'] };
  },
};
