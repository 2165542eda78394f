import { z } from 'zod';
import { BudgetSchema } from './budget';
import { JobSpecSchema } from './job';
import { TenantIdSchema } from './tenant';

/** A root job id, or a nested job's (`<parent jobId>/<taskId>/…`). */
const JobPathSchema = z
  .string()
  .max(1024)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}(\/[A-Za-z0-9][A-Za-z0-9_.:-]{0,127})*$/, 'a job id, or job ids joined by "/"');

/**
 * The job workflow's input, checked by the workflow itself: a job started straight through
 * Temporal meets the same rules as one submitted to the API.
 */
export const JobInputSchema = z.object({
  spec: z.object({ jobId: JobPathSchema }).passthrough(),
  tenant: TenantIdSchema.optional(),
  depth: z.number().int().min(0).max(10).optional(),
  maxDepth: z.number().int().min(0).max(10).optional(),
  allocation: BudgetSchema.optional(),
  agentQueue: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[A-Za-z0-9_.:@-]+$/, 'a task queue name')
    .optional(),
  traceparent: z
    .string()
    .regex(/^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/, 'a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>)')
    .optional(),
});

/** One thing wrong with a job input: where (the input's field path) and what. */
export interface JobInputIssue {
  path: PropertyKey[];
  message: string;
}

/** What is wrong with a job input, at most 20 issues (empty when valid). */
export function jobInputIssues(input: unknown): JobInputIssue[] {
  const issues: JobInputIssue[] = [];
  const note = (prefix: PropertyKey[], err: z.ZodError) =>
    err.issues.forEach((i) => issues.push({ path: [...prefix, ...i.path], message: i.message }));
  const parsed = JobInputSchema.safeParse(input);
  if (!parsed.success) note([], parsed.error);
  else {
    // the spec's own rules, with the job id (a path for nested jobs) checked above
    const spec = JobSpecSchema.safeParse({ ...parsed.data.spec, jobId: undefined });
    if (!spec.success) note(['spec'], spec.error);
  }
  return issues.slice(0, 20);
}

/** Field paths and messages of an invalid job input (empty when valid). */
export function jobInputProblems(input: unknown): string[] {
  return jobInputIssues(input).map((i) => `${i.path.map(String).join('.') || '(input)'}: ${i.message}`);
}
