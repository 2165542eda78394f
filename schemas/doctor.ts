/**
 * `delegate doctor`: the record's hygiene for the caller's tenant, and what the deployment's
 * automatic prune does next. `GET /v1/doctor` reports; `POST /v1/doctor/fix` deletes what the
 * report says may go now (orphaned scouts), then reports again.
 *
 *   GET /v1/doctor ──> { checks: [ orphaned scouts (advisory), overdue inbox items ], prune: { next run, what it deletes } }
 *   POST /v1/doctor/fix ──> { fixed: { scouts: n }, report }
 */
import { z } from 'zod';

/** How a check came out: `ok` nothing to do; `advisory` something `--fix` (or the next prune) mends; `warning` for the operator. */
export const DoctorStatusSchema = z.enum(['ok', 'advisory', 'warning']);
export type DoctorStatus = z.infer<typeof DoctorStatusSchema>;

/** One hygiene check. */
export const DoctorCheckSchema = z
  .object({
    id: z.enum(['orphan_scouts', 'overdue_inbox']).describe('which check'),
    status: DoctorStatusSchema,
    count: z.number().int().nonnegative().describe('what it found'),
    oldestAt: z.iso.datetime().nullable().optional().describe('orphan_scouts: when the oldest was created'),
    fixable: z.boolean().describe('`delegate doctor --fix` (POST /v1/doctor/fix) mends it'),
    message: z.string().describe('the finding in a sentence, and what to do'),
  })
  .meta({ id: 'DoctorCheck' });
export type DoctorCheck = z.infer<typeof DoctorCheckSchema>;

/** The deployment's prune schedule, and what its next run deletes of this tenant's record. */
export const DoctorPruneSchema = z
  .object({
    scheduleId: z.string().describe('the Temporal schedule (one per deployment; the workers create it)'),
    exists: z.boolean().describe('false: no worker of this deployment has started yet, so nothing is pruned'),
    paused: z.boolean().optional(),
    every: z.string().optional().describe('how often it runs (DELEGATE_RECORD_PRUNE_EVERY)'),
    nextRunAt: z.iso.datetime().nullable().optional().describe('its next action time as Temporal reports it'),
    dryRun: z.boolean().optional().describe('DELEGATE_RECORD_PRUNE_DRY_RUN: it only lists'),
    jobsFinishedBefore: z.iso
      .datetime()
      .optional()
      .describe('at its next run: records of jobs finished before this go, unless a keep-label holds them'),
    keepLabels: z.array(z.string()).optional(),
    orphanScouts: z.number().int().nonnegative().optional().describe("at its next run: this tenant's orphaned scouts it deletes"),
    message: z.string().describe('what it does next, in a sentence'),
  })
  .meta({ id: 'DoctorPrune' });
export type DoctorPrune = z.infer<typeof DoctorPruneSchema>;

/** What `GET /v1/doctor` answers. */
export const DoctorReportSchema = z
  .object({
    tenant: z.string(),
    checkedAt: z.iso.datetime(),
    status: DoctorStatusSchema.describe('the worst of the checks'),
    checks: z.array(DoctorCheckSchema),
    prune: DoctorPruneSchema,
  })
  .meta({ id: 'DoctorReport' });
export type DoctorReport = z.infer<typeof DoctorReportSchema>;

/** What `POST /v1/doctor/fix` answers: what it deleted, and the report after. */
export const DoctorFixSchema = z
  .object({
    fixed: z.object({ scouts: z.number().int().nonnegative().describe('orphaned scouts deleted') }),
    report: DoctorReportSchema,
  })
  .meta({ id: 'DoctorFix' });
export type DoctorFix = z.infer<typeof DoctorFixSchema>;
