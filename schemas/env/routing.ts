/**
 * Semantic routing: an embeddings API when one is configured (BM25 otherwise), and the scores below which a route finds no agent.
 * Part of `ConfigSchema` (schemas/config.ts), under "Semantic routing" in docs/reference/configuration.md.
 */
import { z } from 'zod';

/** The semantic routing variables. */
export const ROUTING_ENV = {
  DELEGATE_EMBEDDINGS_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe(
      'base URL of an OpenAI-compatible embeddings API (POST {url}/embeddings), e.g. https://api.openai.com/v1; unset: semantic routing ranks with BM25',
    ),
  DELEGATE_EMBEDDINGS_MODEL: z
    .string()
    .min(1)
    .optional()
    .describe('embedding model, e.g. text-embedding-3-small; required with DELEGATE_EMBEDDINGS_URL'),
  DELEGATE_EMBEDDINGS_API_KEY: z.string().min(1).optional().describe('bearer key of the embeddings API'),
  DELEGATE_SEMANTIC_MIN_SIMILARITY: z.coerce
    .number()
    .min(-1)
    .max(1)
    .default(0.3)
    .describe('embeddings path: a semantic route below this cosine similarity finds no agent (no_agent)'),
  DELEGATE_SEMANTIC_MIN_SCORE: z.coerce
    .number()
    .min(0)
    .max(1)
    .default(0.3)
    .describe('BM25 path: a semantic route below this normalised score (0..1) finds no agent (no_agent)'),
};
