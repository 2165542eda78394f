/**
 * Pure helpers that build and combine results: a subtask that never ran, the sums of a
 * job's metrics, evidence de-duplication. No I/O, no clock: unit-tested on their own.
 */
import type { Evidence } from '../schemas/evidence';
import type { TaskSpec } from '../schemas/job';
import type { FailureReason, JobMetrics, JobResult, TaskMetrics, TaskResult } from '../schemas/result';
import { effectivePriority } from './priority';
import { utf8Bytes } from './utf8';
import { addUsage, usageOf, zeroUsage } from './money';

/** Metrics of a subtask that did nothing. */
export function emptyMetrics(): TaskMetrics {
  return { latencyMs: 0, ...zeroUsage(), steps: 0, attempts: 0, channelsHit: [] };
}

/** The agent a task names, as a display string. */
export function agentLabel(task: TaskSpec): string {
  if (task.job) return `job:${task.job.pattern}`;
  if (task.role) return `role:${task.role}`;
  const a = task.agent;
  if (a === undefined) return 'none';
  if (typeof a === 'string') return a;
  return 'capability' in a ? `capability:${a.capability}` : 'route:semantic';
}

/** The result of a subtask that never ran (refused, skipped, cancelled before start). */
export function notRunResult(task: TaskSpec, reason: FailureReason, message: string): TaskResult {
  return {
    id: task.id,
    agentId: agentLabel(task),
    status: 'failure',
    summary: message,
    evidence: [],
    citations: [],
    followUps: [],
    confidence: 0,
    metrics: emptyMetrics(),
    failureReason: reason,
    errors: [message],
  };
}

/** Evidence without duplicates (same id, or same url), first occurrence kept. */
export function dedupeEvidence(items: Evidence[]): Evidence[] {
  return appendEvidence([], items);
}

const evidenceKeys = (e: Evidence): string[] => (e.url ? [`id:${e.id}`, `url:${e.url}`] : [`id:${e.id}`]);

/** Appends to `list` (in place; it holds no duplicates) the items it does not hold yet by id or url, first kept; returns `list`. */
export function appendEvidence(list: Evidence[], items: readonly Evidence[]): Evidence[] {
  const seen = new Set(list.flatMap(evidenceKeys));
  for (const e of items) {
    const keys = evidenceKeys(e);
    if (keys.some((k) => seen.has(k))) continue;
    for (const k of keys) seen.add(k);
    list.push(e);
  }
  return list;
}

/** Strings without duplicates, order kept. */
export function dedupe(items: string[]): string[] {
  return [...new Set(items)];
}

/** Sums of the subtasks' metrics; latency is the job's wall clock. */
export function sumMetrics(results: TaskResult[], latencyMs: number, savedUsd = 0): JobMetrics {
  const m: JobMetrics = { ...emptyMetrics(), latencyMs, subtasks: results.length, savedUsd };
  const channels = new Set<string>();
  for (const r of results) {
    Object.assign(m, addUsage(m, r.metrics));
    m.steps += r.metrics.steps;
    m.attempts += r.metrics.attempts;
    if (r.metrics.throttledMs) m.throttledMs = (m.throttledMs ?? 0) + r.metrics.throttledMs;
    if (r.metrics.hedges) {
      m.hedges = (m.hedges ?? 0) + r.metrics.hedges;
      m.hedgeCostUsd = (m.hedgeCostUsd ?? 0) + (r.metrics.hedgeCostUsd ?? 0);
    }
    r.metrics.channelsHit.forEach((c) => channels.add(c));
  }
  m.channelsHit = [...channels];
  return m;
}

/** The task with evidence appended to its contextSeed; for a nested job, to each of its tasks'. */
export function withContextSeed(task: TaskSpec, evidence: Evidence[]): TaskSpec {
  if (evidence.length === 0) return task;
  if (task.job) return { ...task, job: { ...task.job, tasks: task.job.tasks.map((t) => withContextSeed(t, evidence)) } };
  return { ...task, contextSeed: dedupeEvidence([...(task.contextSeed ?? []), ...evidence]) };
}

/** A nested job's result seen as one task's result. */
export function jobAsTaskResult(task: TaskSpec, job: JobResult): TaskResult {
  const status = job.status === 'success' ? 'success' : job.status === 'partial' ? 'partial' : 'failure';
  const reasons = job.results.map((r) => r.failureReason).filter((r) => r !== null);
  const done = job.results.filter((r) => r.status === 'success').length;
  return {
    id: task.id,
    agentId: agentLabel(task),
    status,
    summary: job.results.length
      ? `${job.pattern} job ${job.status}: ${done} of ${job.results.length} subtasks succeeded`
      : `${job.pattern} job ${job.status}: ${job.metrics.subtasks} subtasks`,
    data: job.output,
    evidence: job.evidence,
    citations: dedupe(job.results.flatMap((r) => r.citations)),
    followUps: job.followUps,
    confidence: job.results.length
      ? job.results.reduce((s, r) => s + r.confidence, 0) / job.results.length
      : job.status === 'success'
        ? 1
        : 0,
    metrics: {
      latencyMs: job.metrics.latencyMs,
      ...usageOf(job.metrics),
      steps: job.metrics.steps,
      attempts: job.metrics.attempts,
      channelsHit: job.metrics.channelsHit,
    },
    failureReason: status === 'success' ? null : job.status === 'cancelled' ? 'cancelled' : (reasons[0] ?? 'agent_error'),
    errors: job.results.flatMap((r) => r.errors.map((e) => `${r.id}: ${e}`)),
    priority: effectivePriority(task),
  };
}

/** UTF-8 size of a string (re-exported for the workflow modules that measure payloads). */
export { utf8Bytes };

/** UTF-8 size of a value's JSON. */
export function jsonBytes(v: unknown): number {
  return utf8Bytes(JSON.stringify(v) ?? 'null');
}

/** A result without its bulk (data, evidence, long text): status, confidence and metrics stay exact. */
export function compactResult(r: TaskResult): TaskResult {
  return {
    ...r,
    summary: r.summary.slice(0, 200),
    data: undefined,
    evidence: [],
    citations: [],
    followUps: [],
    errors: r.errors.slice(0, 3).map((e) => e.slice(0, 500)),
  };
}

/** The longest prefix of `items` whose JSON fits in `maxBytes`. */
export function fitList<T>(items: T[], maxBytes: number): T[] {
  let used = 2;
  const out: T[] = [];
  for (const item of items) {
    used += jsonBytes(item) + 1;
    if (used > maxBytes) break;
    out.push(item);
  }
  return out;
}
