/**
 * A job's current model: the spec sets it, an update changes it mid-run. Children started
 * after the change run on the new one; children already running keep the one they started
 * with (it is in their input). The state lives on the job's input, so a run that continues
 * as new keeps it.
 *
 *   API ──update model {model?, maxOutputTokens?}──> job: input.model = applied
 *   job ──startChild(input.model)──> subtask (fixed for its life) · nested job (its own children)
 */
import { ApplicationFailure, log, setHandler } from '@temporalio/workflow';
import { ErrorType } from '../../core/errors';
import type { JobInput } from '../../contracts/job';
import { jobMessages, modelUpdate } from '../../contracts/messages';
import { applyModelUpdate, lowestCap, type JobModelState } from '../../core/role-limits';

const invalid = (message: string) => ApplicationFailure.create({ type: ErrorType.InvalidInput, message, nonRetryable: true });

/** The job's current model and cap: the last update's, else the spec's. */
export function currentModel(input: JobInput): JobModelState {
  return (
    input.model ?? {
      ...(input.spec.model ? { model: input.spec.model } : {}),
      ...(input.spec.maxOutputTokens ? { maxOutputTokens: input.spec.maxOutputTokens } : {}),
    }
  );
}

/** What a nested job starts with: its own spec's model, else its parent's; the lower of the two caps. */
export function nestedModel(parent: JobInput, nested: { model?: string; maxOutputTokens?: number }): JobModelState | undefined {
  const cur = currentModel(parent);
  const model = nested.model ?? cur.model;
  const cap = lowestCap(cur.maxOutputTokens, nested.maxOutputTokens);
  return model || cap ? { ...(model ? { model } : {}), ...(cap ? { maxOutputTokens: cap } : {}) } : undefined;
}

/** Throws unless the update names a model or a cap, well-formed. */
export function validateModelUpdate(u: unknown): asserts u is JobModelState {
  if (typeof u !== 'object' || u === null || Array.isArray(u)) throw invalid('the update is an object: { model?, maxOutputTokens? }');
  const { model, maxOutputTokens, ...rest } = u as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length) throw invalid(`unknown field "${extra[0]}"`);
  if (model === undefined && maxOutputTokens === undefined) throw invalid('give model, maxOutputTokens or both');
  if (model !== undefined && (typeof model !== 'string' || model.length === 0 || model.length > 200))
    throw invalid('model must be a non-empty string of at most 200 characters');
  if (
    maxOutputTokens !== undefined &&
    (typeof maxOutputTokens !== 'number' || !Number.isInteger(maxOutputTokens) || maxOutputTokens < 1 || maxOutputTokens > 1_000_000)
  ) {
    throw invalid('maxOutputTokens must be an integer from 1 to 1000000');
  }
}

/** Registers the model update of a job (root jobs only: nested ones took their parent's at their start). */
export function installModelHandler(input: JobInput, depth: number): void {
  setHandler(
    modelUpdate,
    (update) => {
      const next = applyModelUpdate(currentModel(input), update);
      log.info('job model changed', { jobId: input.spec.jobId, model: next.model, maxOutputTokens: next.maxOutputTokens });
      // on the input: the children started from now on, and a continued run, read it there
      input.model = next;
      return next;
    },
    {
      description: jobMessages.model,
      validator: (update) => {
        validateModelUpdate(update);
        if (depth > 0)
          throw ApplicationFailure.create({
            type: ErrorType.Conflict,
            message: 'a nested job takes its model from its root job',
            nonRetryable: true,
          });
      },
    },
  );
}
