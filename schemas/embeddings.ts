import { z } from 'zod';

/** What Delegate sends an OpenAI-compatible `POST {DELEGATE_EMBEDDINGS_URL}/embeddings`. */
export const EmbeddingsRequestSchema = z.object({
  model: z.string().min(1),
  input: z.array(z.string()).min(1),
});
export type EmbeddingsRequest = z.infer<typeof EmbeddingsRequestSchema>;

/** What such an endpoint answers: one vector per input, `index` saying which. */
export const EmbeddingsResponseSchema = z.object({
  data: z.array(z.object({ index: z.number().int().min(0), embedding: z.array(z.number()).min(1) })).min(1),
});
export type EmbeddingsResponse = z.infer<typeof EmbeddingsResponseSchema>;
