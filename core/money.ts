/**
 * Exact amounts: money counts integer micro-dollars, so sums of dollars never show float
 * dust (0.01 + 0.05 is 0.06, not 0.060000000000000005). Amounts stay dollars everywhere
 * they are stored or reported; every dollar value is micros / 1e6 of an integer.
 *
 *   dollars ──toMicros──> integer µ$ ──add, subtract, share──> µ$ ──fromMicros──> dollars
 */
import type { Usage } from '../schemas/budget';
import { AXES, SPEND_AXES, type AxisKind, type BudgetAxis } from './budget-axes';
import { addSplit, splitOf } from './token-split';

/** Micro-dollars in a dollar. */
export const MICROS_PER_USD = 1_000_000;

/** Dollars as an integer number of micro-dollars (rounded to the nearest). */
export function toMicros(usd: number): number {
  return Math.round(usd * MICROS_PER_USD);
}

/** Integer micro-dollars as dollars: prints as the exact decimal. */
export function fromMicros(micros: number): number {
  return micros / MICROS_PER_USD;
}

/** a + b dollars, exact to the micro-dollar. */
export function addUsd(a: number, b: number): number {
  return fromMicros(toMicros(a) + toMicros(b));
}

/** a - b dollars, exact to the micro-dollar (may be negative). */
export function subUsd(a: number, b: number): number {
  return fromMicros(toMicros(a) - toMicros(b));
}

/** The sum of dollar amounts, exact to the micro-dollar. */
export function sumUsd(amounts: number[]): number {
  return fromMicros(amounts.reduce((s, x) => s + toMicros(x), 0));
}

/** Units of an axis per reported unit: money counts micro-dollars; wall clock is not scaled. */
const SCALE: Record<AxisKind, number | undefined> = { money: MICROS_PER_USD, integer: 1, wallClock: undefined };

/** An amount in the axis's exact units (micro-dollars, whole units); wall clock unchanged. */
export function toUnits(axis: BudgetAxis, v: number): number {
  const s = SCALE[AXES[axis].kind];
  return s === undefined ? v : Math.round(v * s);
}

/** An amount in exact units back to the reported unit (dollars are always micros / 1e6). */
export function fromUnits(axis: BudgetAxis, units: number): number {
  const s = SCALE[AXES[axis].kind];
  return s === undefined ? units : units / s;
}

/** a + b on an axis, exact for money and integers. */
export function addOn(axis: BudgetAxis, a: number, b: number): number {
  return fromUnits(axis, toUnits(axis, a) + toUnits(axis, b));
}

/** a - b on an axis, exact for money and integers (may be negative). */
export function subOn(axis: BudgetAxis, a: number, b: number): number {
  return fromUnits(axis, toUnits(axis, a) - toUnits(axis, b));
}

/** The largest amount on an axis that does not exceed `v` (whole micro-dollars, whole units). */
export function floorOn(axis: BudgetAxis, v: number): number {
  const s = SCALE[AXES[axis].kind];
  // round first so that 0.06 (5999.999… µ$ in binary) does not floor a micro away
  return s === undefined ? v : Math.floor(Math.round(v * s * 1e3) / 1e3) / s;
}

/** An n-th of an amount, rounded down to whole micro-dollars or whole units (wall clock: exact). */
export function splitOn(axis: BudgetAxis, amount: number, n: number): number {
  return SCALE[AXES[axis].kind] === undefined ? amount / n : fromUnits(axis, Math.floor(toUnits(axis, amount) / n));
}

/** Zero usage on every accumulating axis. */
export function zeroUsage(): Usage {
  return usageOf({});
}

/** Just the accumulating axes of a usage or metrics object (an axis it lacks counts 0), and the token split it has. */
export function usageOf(m: Partial<Usage>): Usage {
  return { ...(Object.fromEntries(SPEND_AXES.map((a) => [a, m[a] ?? 0])) as Usage), ...splitOf(m) };
}

/** True when a usage spent anything on any accumulating axis. */
export function spentSomething(u: Partial<Usage>): boolean {
  return SPEND_AXES.some((a) => (u[a] ?? 0) > 0);
}

/** Adds two usages, exactly (money in micro-dollars); an axis missing from either counts 0; the token split where either has it. */
export function addUsage(a: Partial<Usage>, b: Partial<Usage>): Usage {
  return { ...(Object.fromEntries(SPEND_AXES.map((x) => [x, addOn(x, a[x] ?? 0, b[x] ?? 0)])) as Usage), ...addSplit(a, b) };
}
