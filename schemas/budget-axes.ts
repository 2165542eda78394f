/**
 * The budget axes, once: every budget, top-up, usage and ledger schema and every loop over
 * axes is built from this table, so an axis is added here (and in the ledger's arithmetic
 * only if it is a new kind).
 *
 *   AXES ──> Budget · BudgetTopUp · Usage · Ledger schemas ──> ledger, allocation, metrics, UI
 */
import { z } from 'zod';

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
  latencySeconds: { kind: 'wallClock', accumulates: false, max: 31_536_000, description: 'wall clock of the whole subtask', label: 'latency' },
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

/** A budget number of one axis, before `.optional()`. */
function amount(axis: BudgetAxis, positive: boolean): z.ZodNumber {
  const row: AxisRow = AXES[axis];
  let n = row.kind === 'integer' ? z.number().int() : z.number().finite();
  n = positive || row.kind === 'wallClock' ? n.positive() : n.nonnegative();
  return n.max(row.max);
}

type Shape<K extends string, T> = { [P in K]: T };
const shapeOf = <K extends BudgetAxis, T>(keys: readonly K[], f: (axis: K) => T) => Object.fromEntries(keys.map((k) => [k, f(k)])) as Shape<K, T>;

/** A budget's shape: each axis optional (absent = unlimited), described as the table says. */
export function budgetShape() {
  return shapeOf(BUDGET_AXES, (a) => {
    const d: string | undefined = (AXES[a] as AxisRow).description;
    const o = amount(a, false).optional();
    return d === undefined ? o : o.describe(d);
  });
}

/** A top-up's shape: each axis optional and strictly positive. */
export function topUpShape() {
  return shapeOf(BUDGET_AXES, (a) => amount(a, true).optional());
}

/** A usage's shape: every accumulating axis, non-negative (optional where an agent may leave one out). */
export function usageShape<O extends boolean>(optional: O) {
  return shapeOf(SPEND_AXES, (a) => {
    const n = AXES[a].kind === 'integer' ? z.number().int().nonnegative() : z.number().finite().nonnegative();
    return (optional ? n.optional() : n) as O extends true ? z.ZodOptional<z.ZodNumber> : z.ZodNumber;
  });
}

/** Plain numbers for every accumulating axis (metrics as reported). */
export function metricsShape() {
  return shapeOf(SPEND_AXES, () => z.number());
}

/** The same value under every axis (a ledger's rows). */
export function perAxis<T>(f: (axis: BudgetAxis) => T): Shape<BudgetAxis, T> {
  return shapeOf(BUDGET_AXES, f);
}
