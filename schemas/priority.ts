/** The zod schema of a job's or a task's priority; the scale and its rules are in core/priority.ts. */
import { z } from 'zod';
import { PRIORITY } from '../core/priority';

/** A job's or a task's priority: Temporal's `priorityKey`, lower runs sooner. */
export const PrioritySchema = z
  .number()
  .int()
  .min(PRIORITY.mostUrgent)
  .max(PRIORITY.leastUrgent)
  .describe("1 (most urgent) to 5 (bulk); lower runs sooner on a busy worker. Default: the job's, else 3")
  .meta({ id: 'Priority' });
export type Priority = z.infer<typeof PrioritySchema>;
