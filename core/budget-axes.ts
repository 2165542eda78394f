/**
 * The budget axes, once: every budget, top-up, usage and ledger schema and every loop over
 * axes is built from this table, so an axis is added here (and in the ledger's arithmetic
 * only if it is a new kind).
 *
 *   AXES ──> Budget · BudgetTopUp · Usage · Ledger schemas ──> ledger, allocation, metrics, UI
 *
 * Pure and zod-free: workflows, the record and the API read the table; schemas/budget-axes.ts
 * builds the zod shapes from it.
 */
/**
 * How an axis counts: `money` in US dollars, exact to the micro-dollar; `integer` in whole
 * units; `wallClock` in seconds measured by the clock, never accumulated.
 */
export type AxisKind = 'money' | 'integer' | 'wallClock';

/** One row of the axis table. */
export interface AxisRow {
  kind: AxisKind;
  /** True when steps and children add spend to it; false for wall clock. */
  accumulates: boolean;
  /** Largest budget or top-up accepted. */
  max: number;
  /** Shown in the OpenAPI document (on budgets). */
  description?: string;
  /** Shown in the Temporal UI's job details. */
  label: string;
}

/** The budget axes, in the order they are reported. */
export const AXES = {
  costUsd: { kind: 'money', accumulates: true, max: 1e9, description: 'US dollars', label: 'cost' },
  tokens: { kind: 'integer', accumulates: true, max: 1e12, label: 'tokens' },
  toolCalls: { kind: 'integer', accumulates: true, max: 1e9, label: 'tool calls' },
  latencySeconds: {
    kind: 'wallClock',
    accumulates: false,
    max: 31_536_000,
    description: 'wall clock of the whole subtask',
    label: 'latency',
  },
} as const satisfies Record<string, AxisRow>;

type Table = typeof AXES;
/** A budget axis. */
export type BudgetAxis = keyof Table;
/** An axis that accumulates spend. */
export type SpendAxis = { [K in BudgetAxis]: Table[K]['accumulates'] extends true ? K : never }[BudgetAxis];

/** Every axis, in table order. */
export const BUDGET_AXES = Object.keys(AXES) as BudgetAxis[];
/** The axes that accumulate spend (latency is wall clock), in table order. */
export const SPEND_AXES = BUDGET_AXES.filter((a) => AXES[a].accumulates) as SpendAxis[];

type Shape<K extends string, T> = { [P in K]: T };
/** An object with one entry per key, each from `f`. */
export const shapeOf = <K extends BudgetAxis, T>(keys: readonly K[], f: (axis: K) => T) =>
  Object.fromEntries(keys.map((k) => [k, f(k)])) as Shape<K, T>;

/** The same value under every axis (a ledger's rows). */
export function perAxis<T>(f: (axis: BudgetAxis) => T): Shape<BudgetAxis, T> {
  return shapeOf(BUDGET_AXES, f);
}
