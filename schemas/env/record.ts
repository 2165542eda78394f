/**
 * The durable record of finished jobs: where it lives, how long it keeps them, and the archive's fault-injection holds.
 * Part of `ConfigSchema` (schemas/config.ts), under "Record" in docs/reference/configuration.md.
 */
import { z } from 'zod';
import { bool, listOf } from './values';

/** The record variables. */
export const RECORD_ENV = {
  DELEGATE_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'a postgres:// URL')
    .optional()
    .describe('PostgreSQL URL of the durable record of finished jobs (default: the SQLite file DELEGATE_RECORD_FILE)'),
  DELEGATE_RECORD_FILE: z
    .string()
    .min(1)
    .default('.data/delegate.db')
    .describe('SQLite file of the durable record when DELEGATE_DATABASE_URL is unset'),
  DELEGATE_RECORD_MAX_AGE_DAYS: z.coerce
    .number()
    .positive()
    .max(36_500)
    .default(365)
    .describe('the prune schedule deletes records of jobs finished longer ago'),
  DELEGATE_RECORD_KEEP_LABELS: listOf('feature').describe('comma-separated label keys: records carrying one are never pruned'),
  DELEGATE_RECORD_PRUNE_EVERY: z
    .string()
    .regex(/^\d+\s*(s|m|h|d)$/, 'a duration like 30m, 1h or 1d')
    .default('1h')
    .describe('how often the prune schedule runs'),
  DELEGATE_RECORD_PRUNE_DRY_RUN: bool.default(false).describe('the prune schedule only lists what it would delete'),
  DELEGATE_CHAOS_ARCHIVE_HOLD_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(600_000)
    .default(0)
    .describe('fault-injection tests only: hold each archive write open this long before it commits'),
  DELEGATE_CHAOS_ARCHIVE_HOLD_AFTER_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(600_000)
    .default(0)
    .describe('fault-injection tests only: wait this long after an archive committed before reporting it'),
};
