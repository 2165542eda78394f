/**
 * What the Temporal UI shows of a running job or subtask: the static summary of a child
 * (`task-id · agent · question`) and the markdown of its "current details", kept narrow
 * enough for the UI's panel (a few columns, one row per figure). Pure.
 */
import type { Ledger, Progress, TaskSpec } from '../schemas';
import { AXES, BUDGET_AXES, type BudgetAxis } from '../core/budget-axes';

/**
 * Ends every details text. The UI (2.42, the Temporal CLI's) sizes the details frame to its
 * body without the body's margins and cuts off the last ~20 px: a paragraph of one no-break
 * space takes that cut instead of the last row or the last error.
 */
const CLIPPED_TAIL = ['', '\u00a0'];

/** Longest question shown in a summary (the UI cuts long summaries anyway). */
const QUESTION_CHARS = 120;

/** `task-id · agent · question`: what a child, or a step, is listed as. */
export function staticSummary(task: TaskSpec, agent: string): string {
  const q = task.question.replace(/\s+/g, ' ').trim();
  return `${task.id} · ${agent} · ${q.length > QUESTION_CHARS ? `${q.slice(0, QUESTION_CHARS - 1)}…` : q}`;
}

/** One axis amount as the table shows it. */
function amount(axis: BudgetAxis, n: number | null): string {
  if (n === null) return '∞';
  if (AXES[axis].kind === 'money') return `$${+n.toFixed(4)}`;
  if (AXES[axis].kind === 'wallClock') return `${+n.toFixed(1)}s`;
  return String(n);
}

/** The ledger as a table: one column per axis, rows spent (reserved) and limit. */
export function ledgerTable(l: Ledger, withReserved: boolean): string[] {
  const row = (name: string, f: (axis: BudgetAxis) => string) => `| ${name} | ${BUDGET_AXES.map(f).join(' | ')} |`;
  return [
    row('', (a) => AXES[a].label),
    row('---', () => '---'),
    row('spent', (a) => amount(a, l[a].spent)),
    ...(withReserved ? [row('reserved', (a) => amount(a, l[a].reserved))] : []),
    row('limit', (a) => amount(a, l[a].limit)),
  ];
}

/** A job's details: its progress counts and its budget. */
export function jobDetails(pattern: string, jobId: string, c: Progress, l: Ledger, throttledMs = 0): string {
  return [
    `**${pattern}** \`${jobId}\``,
    '',
    '| total | pending | running | ok | partial | failed |',
    '|---|---|---|---|---|---|',
    `| ${c.total} | ${c.pending} | ${c.running} | ${c.succeeded} | ${c.partial} | ${c.failed} |`,
    '',
    ...(throttledMs > 0 ? [throttledLine(throttledMs, 'finished subtasks'), ''] : []),
    ...ledgerTable(l, true),
    ...CLIPPED_TAIL,
  ].join('\n');
}

/** What a subtask shows while it runs. */
export interface SubtaskDetails {
  taskId: string;
  agentId: string;
  phase: string;
  steps: number;
  attempts: number;
  ledger: Ledger;
  lastError?: string;
  /** Which agent the subtask was routed to, and why. */
  routing?: { agent: string; reason: string };
  /** How long its steps waited on their provider's throttling. */
  throttledMs?: number;
}

/** The line that says how long steps waited on their providers (back-pressure, not failures). */
function throttledLine(ms: number, whose: string): string {
  return `${whose} waited ${(ms / 1000).toFixed(1)} s on their provider's throttling (429, 529, Retry-After): back-pressure, not failures`;
}

/** A subtask's details: where its loop is, what it spent against its budget, its last error. */
export function subtaskDetails(d: SubtaskDetails): string {
  return [
    `**${d.taskId}** · ${d.agentId} · ${d.phase}`,
    '',
    `step ${d.steps} · attempts ${d.attempts}`,
    ...(d.throttledMs ? ['', throttledLine(d.throttledMs, 'its steps')] : []),
    ...(d.routing ? ['', `routed to ${d.routing.agent}: ${d.routing.reason.replace(/\s+/g, ' ').slice(0, 300)}`] : []),
    '',
    ...ledgerTable(d.ledger, false),
    ...(d.lastError ? ['', `last error: ${d.lastError.replace(/\s+/g, ' ').slice(0, 300)}`] : []),
    ...CLIPPED_TAIL,
  ].join('\n');
}
