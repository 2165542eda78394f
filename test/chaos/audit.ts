/**
 * What the chaos scenarios assert: nothing submitted is lost, no step runs twice.
 *
 * Duplicates are counted against the workflow histories, not the step log alone. The
 * step log is written by the activity just before it returns, so a worker SIGKILLed
 * after that line but before its completion reached the server leaves a line for an
 * attempt Temporal never recorded; the server then times the attempt out and retries it,
 * and the step legitimately runs again. That is at-least-once execution of an
 * *unacknowledged* step, the contract of every activity, and not a duplicate. What must
 * never happen is a step whose completion *was* recorded running again. So, per step key:
 *   - history must schedule the step once and record one completion, at attempt r;
 *   - the log must hold exactly one line for attempt r (the recorded run);
 *   - log lines for attempts < r are unacknowledged runs (reported, allowed);
 *   - log lines for attempts > r, a second line for attempt r, or a second
 *     ActivityTaskScheduled for the same key are duplicates (must be 0).
 * A recorded completion without its log line means the audit itself is blind: it fails.
 */
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { appendFileSync } from 'node:fs';
import { inject } from 'vitest';
import type { JobResult } from '../../schemas';
import type { StepLogEntry } from './harness';

/** Outcome of `auditSteps`. */
export interface StepAudit {
  /** Steps whose completion history records. */
  recorded: number;
  /** Steps that ran again after their completion was recorded, or were scheduled twice. */
  duplicates: number;
  /** Runs whose completion never reached the server (retried legitimately). */
  unacknowledged: number;
  /** Recorded completions with no log line (the audit could not see them). */
  unlogged: number;
  /** Steps whose recorded attempt was > 1: retries happened. */
  retried: number;
  /** Human-readable lines about anything that is not clean. */
  notes: string[];
}

interface RecordedStep {
  scheduled: number;
  attempt?: number;
}

/** Reads the agentStep activities of one subtask workflow's history, by step key. */
async function historySteps(client: Client, workflowId: string, into: Map<string, RecordedStep>): Promise<void> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const keyBySchedule = new Map<string, string>();
  const attemptByStart = new Map<string, number>();
  for (const ev of history.events ?? []) {
    const id = String(ev.eventId);
    const sched = ev.activityTaskScheduledEventAttributes;
    if (sched && sched.activityType?.name === 'agentStep') {
      const input = defaultPayloadConverter.fromPayload<{ stepKey: string }>(sched.input!.payloads![0]);
      keyBySchedule.set(id, input.stepKey);
      const s = into.get(input.stepKey) ?? { scheduled: 0 };
      s.scheduled += 1;
      into.set(input.stepKey, s);
    }
    const started = ev.activityTaskStartedEventAttributes;
    if (started) attemptByStart.set(id, started.attempt ?? 1);
    const done = ev.activityTaskCompletedEventAttributes;
    if (done) {
      const key = keyBySchedule.get(String(done.scheduledEventId));
      if (key) into.get(key)!.attempt = attemptByStart.get(String(done.startedEventId)) ?? 1;
    }
  }
}

/** Compares the subtask histories with the step log (see the file comment). */
export async function auditSteps(client: Client, subtaskWorkflowIds: string[], log: StepLogEntry[]): Promise<StepAudit> {
  const recorded = new Map<string, RecordedStep>();
  for (let i = 0; i < subtaskWorkflowIds.length; i += 20) {
    await Promise.all(subtaskWorkflowIds.slice(i, i + 20).map((id) => historySteps(client, id, recorded)));
  }
  const logged = new Map<string, number[]>();
  for (const e of log) logged.set(e.stepKey, [...(logged.get(e.stepKey) ?? []), e.attempt]);
  const audit: StepAudit = { recorded: 0, duplicates: 0, unacknowledged: 0, unlogged: 0, retried: 0, notes: [] };
  for (const [key, s] of recorded) {
    if (s.scheduled > 1) {
      audit.duplicates += s.scheduled - 1;
      audit.notes.push(`${key}: scheduled ${s.scheduled} times`);
    }
    const attempts = logged.get(key) ?? [];
    logged.delete(key);
    if (s.attempt === undefined) {
      // never completed (the step failed for good): any logged run of it was unacknowledged
      audit.unacknowledged += attempts.length;
      continue;
    }
    audit.recorded += 1;
    if (s.attempt > 1) audit.retried += 1;
    const atRecorded = attempts.filter((a) => a === s.attempt).length;
    const after = attempts.filter((a) => a > s.attempt!).length;
    audit.unacknowledged += attempts.filter((a) => a < s.attempt!).length;
    if (atRecorded === 0) {
      audit.unlogged += 1;
      audit.notes.push(`${key}: completion recorded at attempt ${s.attempt} but not in the step log`);
    }
    if (atRecorded > 1 || after > 0) {
      audit.duplicates += Math.max(0, atRecorded - 1) + after;
      audit.notes.push(`${key}: recorded at attempt ${s.attempt}, logged at attempts ${attempts.join(',')}`);
    }
  }
  for (const [key, attempts] of logged) {
    // a logged step the audited histories do not know: another job's, or a bug; say so
    audit.notes.push(`${key}: logged (attempts ${attempts.join(',')}) but in no audited history`);
  }
  return audit;
}

/** Subtasks submitted but without a result: the job's missing task ids, or all of them without a result. */
export function lostSubtasks(taskIds: string[], result: JobResult | undefined): number {
  if (!result) return taskIds.length;
  const have = new Set(result.results.map((r) => r.id));
  return taskIds.filter((id) => !have.has(id)).length;
}

/** One row of the summary table printed at the end of the chaos run. */
export interface ScenarioRow {
  scenario: string;
  jobs: number;
  subtasks: number;
  lost: number;
  duplicatedSteps: number;
  seconds: number;
  notes?: string;
}

/** Adds a row to the run's summary (printed by the global teardown). */
export function recordScenario(row: ScenarioRow): void {
  appendFileSync(inject('chaosSummaryFile'), `${JSON.stringify(row)}\n`);
}
