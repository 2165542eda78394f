/**
 * A research-contract subtask written inside a job: `contract: "research-subtask"` and the
 * contract's snake_case fields. It is checked as the contract says and runs as the TaskSpec
 * research-mapping.ts makes of it, so a planner's fan-out of such subtasks is one call.
 *
 *   { contract: "research-subtask", id, question, budget, context_seed, … } ──taskFieldsOf──> TaskSpec { research: marker }
 */
import { z } from 'zod';
import { checkResearchInput, ResearchInputObject } from './research-contract';
import { taskFieldsOf } from './research-mapping';

/** One research-contract entry of a job's `tasks`, parsed into the TaskSpec it runs as. */
export const ResearchTaskEntrySchema = ResearchInputObject.extend({
  contract: z.literal('research-subtask').describe('this entry is written in the research-subtask contract (snake_case)'),
})
  .superRefine((entry, ctx) => checkResearchInput(entry, ctx))
  // the TaskSpec's fields, checked by TaskSpecSchema in job.ts (which pipes this entry into it): job.ts imports this module
  .transform(({ contract: _contract, ...input }): unknown => taskFieldsOf(input))
  .meta({ id: 'ResearchTaskEntry' });
