/**
 * Realistic finished jobs to archive, the same for a given index every time: the record's
 * tests compute their expectations from these inputs, the record bench archives thousands.
 * Patterns, statuses, agents, labels (feature=…, team=…, some retain=…), objectives,
 * questions and summaries vary; every 5th job closes at the same instant as the one before
 * (cursor ties); a few summaries carry "café", "charge-the-card" or a rare word.
 */
import type { ArchiveInput } from '../record';
import { BUDGET_AXES, type JobOutcome, type JobResult, type Ledger, type Pattern, type TaskResult, type TaskStatus } from '../schemas';
import { fromMicros, toMicros } from '../core/money';
import { prng } from './chaos/fuzz';
import { taskResult } from './task-result';

export const JOB_PATTERNS: Pattern[] = ['fanout', 'pipeline', 'vote'];
export const JOB_STATUSES: JobOutcome[] = ['success', 'success', 'partial', 'failure', 'cancelled'];
export const JOB_AGENTS = ['researcher', 'wordcount', 'scout', 'sim'];
export const JOB_FEATURES = ['checkout', 'search', 'billing'];
/** Closing time of job 0; job i closes i hours later (ties aside). */
export const JOB_EPOCH = Date.UTC(2025, 0, 6, 9, 0, 0);
export const HOUR = 3_600_000;

const WORDS = [
  'payment',
  'payments',
  'payout',
  'refund',
  'invoice',
  'latency',
  'retry',
  'timeout',
  'checkout',
  'cart',
  'ledger',
  'customer',
  'merchant',
  'webhook',
  'settlement',
  'dispute',
  'currency',
  'fraud',
  'score',
  'review',
  'report',
  'found',
  'three',
  'sources',
  'agree',
  'that',
  'the',
  'service',
  'handles',
  'errors',
  'gracefully',
  'under',
  'load',
];

/** Options of `recordJob`. */
export interface RecordJobOptions {
  /** Subtasks of the job. @default 1 + i % 4 */
  subtasks?: number;
  /** Characters of each summary, about. @default 60 */
  summaryChars?: number;
}

/** When job `i` closes (every 5th at the same instant as the one before). */
export const closedAtOf = (i: number) => JOB_EPOCH + (i % 5 === 1 ? i - 1 : i) * HOUR;

/** The labels of job `i`. */
export function labelsOf(i: number): Record<string, string> {
  const labels: Record<string, string> = {};
  if ((i * 7) % 4 !== 3) labels.feature = JOB_FEATURES[(i * 7) % 4];
  labels.team = i % 3 ? 'payments' : 'growth';
  if (i % 10 === 0) labels.retain = 'audit';
  return labels;
}

/** The summary of subtask `k` of job `i`. */
function summaryOf(i: number, k: number, chars: number, rand: () => number): string {
  const words: string[] = [];
  if (k === 0 && i % 7 === 0) words.push('Café', 'prices', 'checked:');
  if (k === 0 && i % 9 === 4) words.push('charge-the-card', 'retried', 'twice;');
  if (k === 0 && i % 1000 === 17) words.push('Zanzibar');
  let len = words.join(' ').length;
  while (len < chars) {
    const w = WORDS[Math.floor(rand() * WORDS.length)];
    words.push(w);
    len += w.length + 1;
  }
  return words.join(' ') + '.';
}

/** Finished job `i` of `tenant`, as the archive activity would hand it over. */
export function recordJob(tenant: string, i: number, o: RecordJobOptions = {}): ArchiveInput {
  const rand = prng(i + 1);
  const pattern = JOB_PATTERNS[i % 3];
  const status = JOB_STATUSES[i % 5];
  const closedAt = closedAtOf(i);
  const startedAt = closedAt - (1 + (i % 7)) * 60_000;
  const n = o.subtasks ?? 1 + (i % 4);
  const taskStatus: TaskStatus = status === 'success' ? 'success' : status === 'partial' ? 'partial' : 'failure';
  const results: TaskResult[] = [];
  for (let k = 0; k < n; k++) {
    const agentId = JOB_AGENTS[(i + k * 3) % JOB_AGENTS.length];
    // odd micro-dollar amounts: their float sum would show dust, the record's must not
    const costUsd = fromMicros(((i * 131 + k * 17) % 9973) * 7 + 1);
    const ok = k === 0 ? taskStatus : 'success';
    results.push(
      taskResult(
        `t${k}`,
        { answer: `finding ${i}.${k}`, score: k / 10, tags: ['a', 'b'] },
        {
          agentId,
          status: ok,
          summary: summaryOf(i, k, o.summaryChars ?? 60, rand),
          evidence:
            k % 2
              ? []
              : [
                  {
                    id: `e${i}-${k}`,
                    source: 'web',
                    title: `Source ${k}`,
                    url: `https://example.com/${i}/${k}`,
                    snippet: 'a quoted passage',
                  },
                ],
          citations: k % 2 ? [] : [`e${i}-${k}`],
          confidence: 0.5 + (k % 5) / 10,
          metrics: {
            latencyMs: 800 + k,
            costUsd,
            tokens: 100 + i + k,
            toolCalls: k % 3,
            steps: 1 + (k % 2),
            attempts: 1,
            channelsHit: k % 2 ? ['llm'] : [],
          },
          failureReason: ok === 'success' ? null : ok === 'partial' ? 'budget_exhausted' : 'agent_error',
          errors: ok === 'failure' ? ['agent answered 500'] : [],
        },
      ),
    );
  }
  const sum = (f: (r: TaskResult) => number) => results.reduce((s, r) => s + f(r), 0);
  const ledger = Object.fromEntries(
    BUDGET_AXES.map((a) => [a, { limit: a === 'costUsd' ? 5 : null, spent: 0, reserved: 0, remaining: a === 'costUsd' ? 5 : null }]),
  ) as Ledger;
  const result: JobResult = {
    jobId: `job-${i}`,
    pattern,
    status,
    output: { answer: `answer of job ${i}`, zeta: 1, alpha: [i, { nested: true }] },
    results,
    ...(pattern === 'vote'
      ? {
          vote: {
            winner: 'yes',
            tally: [{ ballot: 'yes', key: '"yes"', count: n, weight: n }],
            agreement: 1,
            decidedEarly: false,
            cancelled: 0,
          },
        }
      : {}),
    evidence: results.flatMap((r) => r.evidence),
    followUps: i % 3 ? [] : [`check ${JOB_FEATURES[i % 3]} again`],
    metrics: {
      latencyMs: sum((r) => r.metrics.latencyMs),
      costUsd: fromMicros(sum((r) => toMicros(r.metrics.costUsd))),
      tokens: sum((r) => r.metrics.tokens),
      toolCalls: sum((r) => r.metrics.toolCalls),
      steps: sum((r) => r.metrics.steps),
      attempts: n,
      channelsHit: [],
      subtasks: n,
      savedUsd: 0,
    },
    ...(i % 2 ? { budget: { ledger, clipped: [], refused: [] } } : {}),
  };
  return {
    tenant,
    jobId: `job-${i}`,
    workflowId: `${tenant}/job-${i}`,
    specHash: i % 4 === 3 ? null : `sha256:${((i * 2654435761) >>> 0).toString(16)}`,
    startedAt,
    closedAt,
    ...(i % 2 ? {} : { objective: `Audit the ${JOB_FEATURES[i % 3]} flow, round ${i}` }),
    labels: labelsOf(i),
    questions: results.map((r) => `What does ${r.agentId} know about ${WORDS[(i + r.id.length) % WORDS.length]}?`),
    result,
  };
}
