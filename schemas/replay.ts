/**
 * Replaying a recorded job against another agent or model, and the comparison of the two runs
 * (POST /v1/jobs/:jobId/replay, GET /v1/jobs/:jobId/comparison).
 */
import { z } from 'zod';
import { FailureReasonSchema, JobOutcomeSchema, TaskStatusSchema } from './result';
import { IdSchema } from './task-refs';

/** What a replay changes: the agent and/or the model of every replayed task, and which tasks. */
export const ReplayRequestSchema = z
  .strictObject({
    agent: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .describe(
        "agent id every replayed agent task runs on (nested jobs' tasks too; a role task keeps its role's agent); fallbacks are dropped",
      ),
    model: z.string().min(1).max(200).optional().describe("the replay job's model: its llm children run on it instead of their own"),
    tasks: z
      .array(IdSchema)
      .min(1)
      .max(10_000)
      .optional()
      .describe('ids of the top-level tasks to replay (default: all); a nested job is replayed whole'),
    jobId: IdSchema.optional().describe("the replay job's id (default `<jobId>-replay-<n>`)"),
  })
  .meta({ id: 'ReplayRequest' });
export type ReplayRequest = z.infer<typeof ReplayRequestSchema>;

/** A judge's score or verdict: 0 to 1. */
const Score = z.number().min(0).max(1);

/** One run's side of a subtask. */
export const ReplaySideSchema = z
  .object({
    agentId: z.string(),
    status: TaskStatusSchema,
    failureReason: FailureReasonSchema.nullable(),
    costUsd: z.number(),
    tokens: z.number(),
    latencyMs: z.number(),
    judged: Score.nullable()
      .optional()
      .describe("a task with rubric stop conditions: 1 when the run's judge found a rubric satisfied, null when no verdict was recorded"),
    score: Score.optional().describe(
      "the judge's score of this side's answer to the task's question, 0 (wrong or none) to 1 (fully right), from the grading job (`gradedBy`); absent without a judge (DELEGATE_JUDGE_AGENT) or when either side gave no answer",
    ),
  })
  .meta({ id: 'ReplaySide' });
export type ReplaySide = z.infer<typeof ReplaySideSchema>;

/** One subtask on both sides. */
export const SubtaskComparisonSchema = z
  .object({
    taskId: z.string(),
    source: ReplaySideSchema.nullable().describe('null: the source job has no result of this id'),
    replay: ReplaySideSchema.nullable().describe('null: the replay has no result of this id'),
    outputsEqual: z
      .boolean()
      .nullable()
      .describe('the outputs (data, else the summary) deeply equal, key order aside; null when a side has no result'),
  })
  .meta({ id: 'SubtaskComparison' });
export type SubtaskComparison = z.infer<typeof SubtaskComparisonSchema>;

/** One side's totals over the compared subtasks. */
export const ReplayTotalsSchema = z
  .object({
    status: JobOutcomeSchema.describe("the job's outcome"),
    subtasks: z.number(),
    succeeded: z.number(),
    costUsd: z.number(),
    tokens: z.number(),
    latencyMs: z.number().describe('summed over the compared subtasks'),
    jobLatencyMs: z.number().describe("the whole job's wall clock"),
    meanScore: Score.optional().describe("the mean of the judge's scores over the graded subtasks; absent when none was graded"),
  })
  .meta({ id: 'ReplayTotals' });
export type ReplayTotals = z.infer<typeof ReplayTotalsSchema>;

/** A finished replay beside the job it replays. */
export const JobComparisonSchema = z
  .object({
    jobId: z.string().describe('the replay'),
    replayOf: z.string().describe('the source job'),
    overrides: z.object({ agent: z.string().optional(), model: z.string().optional() }),
    gradedBy: z
      .object({
        jobId: z.string().describe('the grading job (`<replayId>-grade`, labelled gradeOf)'),
        judge: z.string().describe('the judge agent (DELEGATE_JUDGE_AGENT)'),
        graded: z.number().describe('subtasks the judge scored on both sides'),
      })
      .optional()
      .describe('where a judge is configured: the job that scored both sides of every subtask both runs answered'),
    subtasks: z.array(SubtaskComparisonSchema),
    totals: z.object({
      source: ReplayTotalsSchema,
      replay: ReplayTotalsSchema,
      compared: z.number().describe('subtasks with a result on both sides'),
      outputsEqual: z.number().describe('of those, how many gave equal outputs'),
      costRatio: z.number().nullable().describe('replay cost / source cost; null when the source cost nothing'),
      latencyRatio: z.number().nullable().describe('replay / source, summed subtask latency; null when the source took none'),
    }),
  })
  .meta({ id: 'JobComparison' });
export type JobComparison = z.infer<typeof JobComparisonSchema>;
