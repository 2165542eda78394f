import { z } from 'zod';

/** A slim record an agent found; carried between subtasks so nobody searches twice. */
export const EvidenceSchema = z
  .strictObject({
    id: z.string().min(1).max(256),
    source: z.string().min(1).max(256),
    title: z.string().max(1024).optional(),
    url: z.string().max(4096).optional(),
    snippet: z.string().max(20_000),
    score: z.number().finite().optional(),
  })
  .meta({ id: 'Evidence' });
export type Evidence = z.infer<typeof EvidenceSchema>;

/** What the output echoes of its input: the id, the parent_id, and the seed (as Delegate evidence). */
export interface ResearchOrigin {
  id: string;
  parentId: string | null;
  seed: Evidence[];
}
