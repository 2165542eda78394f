import { z } from 'zod';
import { PatternSchema } from './job';
import { JobOutcomeSchema } from './result';
import { JobStateSchema } from './status';

/** One job of a listing: a finished one from the record, a running (or ended without a result) one from Temporal. */
export const JobListItemSchema = z
  .object({
    jobId: z.string(),
    workflowId: z.string(),
    state: JobStateSchema,
    status: z
      .union([z.literal('running'), JobOutcomeSchema])
      .optional()
      .describe('`running`, then the outcome'),
    pattern: PatternSchema.optional(),
    startedAt: z.string().describe('ISO 8601; the listing is ordered by it, newest first'),
  })
  .meta({ id: 'JobListItem' });
export type JobListItem = z.infer<typeof JobListItemSchema>;

/** A page of the job listing, newest start first. */
export const JobPageSchema = z
  .object({
    jobs: z.array(JobListItemSchema),
    nextPageToken: z.string().nullable().describe('pass as `nextPageToken` for the next page; null on the last'),
  })
  .meta({ id: 'JobPage' });
export type JobPage = z.infer<typeof JobPageSchema>;
