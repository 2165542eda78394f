/** Validation of budget top-ups inside workflows (update validators must be pure and synchronous). */
import { ApplicationFailure } from '@temporalio/workflow';
import type { Budget } from '../schemas/budget';
import { AXES, BUDGET_AXES } from '../schemas/budget-axes';
import { ErrorType } from '../schemas/errors';

/** A refused top-up: the API answers it with 400. */
const invalid = (message: string) => ApplicationFailure.create({ type: ErrorType.InvalidInput, message, nonRetryable: true });

/** Throws when a top-up is empty, has unknown axes, or has a non-positive or non-numeric amount. */
export function validateTopUp(add: unknown): asserts add is Budget {
  if (typeof add !== 'object' || add === null || Array.isArray(add)) throw invalid('add must be an object of budget axes');
  const keys = Object.keys(add);
  if (keys.length === 0) throw invalid('add at least one budget axis');
  for (const k of keys) {
    if (!(BUDGET_AXES as string[]).includes(k)) throw invalid(`unknown budget axis "${k}"`);
    const v = (add as Record<string, unknown>)[k];
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw invalid(`add.${k} must be a positive number`);
    if (AXES[k as keyof typeof AXES].kind === 'integer' && !Number.isInteger(v)) throw invalid(`add.${k} must be an integer`);
  }
}
