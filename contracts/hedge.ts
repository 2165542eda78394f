/**
 * The hedge activity's contract: what a subtask with `hedge` asks of the record once per run and
 * agent (a local activity, so the answer is in its history and replays), and what comes back.
 *
 *   subtask ──StepLatencyInput──> stepLatency (the record's task statistics) ──StepLatency──> subtask
 */
import type { StepLatency } from '../core/hedge';

export type { StepLatency } from '../core/hedge';

/** Input of `stepLatency`: whose history, and at which quantile. */
export interface StepLatencyInput {
  tenant: string;
  agentId: string;
  /** The pattern of the subtask's job: its history there when it has enough, else over every pattern. */
  pattern?: string;
  afterP: number;
}

/** The type of `stepLatency`, for the workflow's proxy. */
export type StepLatencyActivity = (input: StepLatencyInput) => Promise<StepLatency>;
