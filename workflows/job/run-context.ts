/**
 * What a pattern hands a task besides the task itself (the previous stage, a context seed), apart
 * from the job's runtime: the runtime, its children and its cache all take it, and the two would
 * otherwise import it from the runtime that imports them.
 */
import type { PreviousStage } from '../../contracts/step';
import type { Evidence } from '../../schemas';

/** Per-run context a pattern adds to a task (a pipeline hands each stage the previous one). */
export interface RunContext {
  /** Handed to the agent with every step (`StepRequest.previous`); not passed into nested jobs. */
  previous?: PreviousStage;
  /** Appended to the task's contextSeed (for a nested job: to each of its tasks'). */
  contextSeed?: Evidence[];
}
