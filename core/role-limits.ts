/**
 * Model routing and limits of delegated children (pure). A child runs on the job's model as
 * it was when the child started; its output cap is the lowest of the caps that apply, so a
 * larger parent allowance never reopens a role's cap.
 *
 *   job.model (latest update) ──child start──> child.model (fixed for the child's life)
 *   min(role.maxOutputTokens, job.maxOutputTokens) ──> step.maxOutputTokens ──llm──> min(…, agent per-step cap, tokens left)
 */

/** The lowest of the caps that are set; undefined when none is. */
export function lowestCap(...caps: (number | undefined)[]): number | undefined {
  const set = caps.filter((c): c is number => typeof c === 'number' && Number.isFinite(c) && c > 0);
  return set.length ? Math.min(...set) : undefined;
}

/** A job's current model and output cap, as an update sets them. */
export interface JobModelState {
  model?: string;
  maxOutputTokens?: number;
}

/** The state after an update: a field the update leaves out keeps its value. */
export function applyModelUpdate(state: JobModelState, update: JobModelState): JobModelState {
  return {
    ...((update.model ?? state.model) ? { model: update.model ?? state.model } : {}),
    ...((update.maxOutputTokens ?? state.maxOutputTokens) ? { maxOutputTokens: update.maxOutputTokens ?? state.maxOutputTokens } : {}),
  };
}
