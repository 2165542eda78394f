/**
 * A research-contract input as the job Delegate runs: its TaskSpec, checked, and the labels it
 * implies. research-mapping.ts writes the fields; this module checks them, apart from it so
 * that the mapping takes no value from job.ts (whose tasks include research entries).
 *
 *   ResearchSubtaskInput ──taskFieldsOf──> fields ──TaskSpecSchema──> { task: TaskSpec, labels: { contract, parent_id } }
 */
import { TaskSpecSchema, type TaskSpec } from './job';
import type { ResearchSubtaskInput } from './research-contract';
import { researchJobLabels, taskFieldsOf } from './research-mapping';

/** A contract input as Delegate runs it. */
export interface ResearchTaskPlan {
  /** The TaskSpec, valid against TaskSpecSchema. */
  task: TaskSpec;
  /** Labels for the job that runs it: `contract` always, `parent_id` when the input has one. */
  labels: Record<string, string>;
}

/** A contract input as the TaskSpec Delegate runs (priority and output format in its `research` marker), with the labels it implies. */
export function toTaskPlan(input: ResearchSubtaskInput): ResearchTaskPlan {
  const task = TaskSpecSchema.parse(taskFieldsOf(input));
  return { task, labels: researchJobLabels([task]) };
}
