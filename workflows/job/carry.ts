/**
 * A long pipeline continues as new between stages before its history nears Temporal's
 * limits. The next run gets the job's ledger, compact results of the stages done (their
 * full results stay in the children; the job result lists them in `batches` for the API to
 * stitch back), capped evidence and follow-ups, and the last successful stage's context.
 *
 *   run 1: stages 1..k ──continue-as-new(carry)──> run 2: stages k+1..m ──> … ──> JobResult
 */
import { allHandlersFinished, condition, continueAsNew, log } from '@temporalio/workflow';
import type { PreviousStage } from '../../contracts/step';
import type { Evidence } from '../../schemas';
import type { DelegationJobWorkflow, JobCarry, JobInput } from '../../contracts/job';
import { MAX_CARRY_BYTES } from '../../core/engine-limits';
import type { JobRuntime } from './runtime';
import { compactResult, dedupe, dedupeEvidence, fitList, jsonBytes } from '../../core/task-results';

/** Evidence and follow-ups a job carries between runs, at most (JSON bytes). */
const CARRIED_EVIDENCE_BYTES = 256 * 1024;
const CARRIED_FOLLOW_UP_BYTES = 64 * 1024;

/** Puts a carried state back into a fresh runtime (called once, before the pattern runs). */
export function restoreCarry(rt: JobRuntime, carry: JobCarry): void {
  rt.budget.restore(carry);
  const byId = new Map(rt.spec.tasks.map((t) => [t.id, t]));
  for (const r of carry.results) {
    const task = byId.get(r.id);
    if (task) rt.record(task, r);
  }
}

/** True in a run continued from an earlier one: earlier stages' results here are compact. */
export function isCarried(rt: JobRuntime): boolean {
  return rt.input.carry !== undefined;
}

/** The state to carry, evidence and follow-ups of all stages so far capped. */
function carryOf(rt: JobRuntime, next: number, last: PreviousStage | undefined): JobCarry {
  const prior = rt.input.carry;
  const completed = rt.records.results();
  const fresh = completed.slice(prior?.results.length ?? 0);
  const { ledger, allocations, clipped, refused } = rt.budget.carry();
  return {
    startedAt: rt.started,
    ledger,
    next,
    last,
    results: completed.map(compactResult),
    allocations,
    clipped,
    refused,
    evidence: fitList(dedupeEvidence([...(prior?.evidence ?? []), ...fresh.flatMap((r) => r.evidence)]), CARRIED_EVIDENCE_BYTES),
    followUps: fitList(dedupe([...(prior?.followUps ?? []), ...fresh.flatMap((r) => r.followUps)]), CARRIED_FOLLOW_UP_BYTES),
    runs: (prior?.runs ?? 1) + 1,
  };
}

/**
 * Continues the job as new at stage `next` (no child running); returns false when it cannot
 * (halted, or the state does not fit one payload even without the last stage's evidence).
 */
export async function continuePipeline(rt: JobRuntime, next: number, last: PreviousStage | undefined): Promise<false> {
  await condition(allHandlersFinished);
  if (rt.halted || rt.children.runningCount() > 0) return false;
  const fits = (l: PreviousStage | undefined): JobInput | undefined => {
    const input: JobInput = { ...rt.input, carry: carryOf(rt, next, l) };
    return jsonBytes(input) <= MAX_CARRY_BYTES ? input : undefined;
  };
  // the last stage's evidence also travels in the next stage's contextSeed: drop it before giving up
  const input = fits(last) ?? fits(last && { ...last, evidence: [] });
  if (!input) return false;
  log.info('pipeline continues as new', { jobId: rt.spec.jobId, next, runs: input.carry!.runs });
  // what this run emitted reaches the stream before the next run starts
  await rt.events.settled();
  return continueAsNew<DelegationJobWorkflow>(input);
}

/** The evidence and follow-ups of earlier runs (empty in a first run). */
export function carriedLists(rt: JobRuntime): { evidence: Evidence[]; followUps: string[] } {
  return { evidence: rt.input.carry?.evidence ?? [], followUps: rt.input.carry?.followUps ?? [] };
}
