/**
 * The subtask: one agent working on one question, as a durable loop of steps.
 *
 *   resolve agent ──> [ next(state, turn) ──> action ──perform──> turn ]* ──> finish: taskResult
 *
 * This file orchestrates only. The loop's order is `next()` (next.ts), pure; its interpreter
 * (loop.ts) performs each action: activities, waits, continue-as-new. Every rule is a transition
 * of the one `SubtaskState` (state.ts), in its own module beside this one and unit-tested there.
 * Whatever happens, the subtask returns a result with the work done so far: it never throws the
 * job's work away.
 */
import type { TaskResult } from '../../schemas';
import type { SubtaskInput } from '../../contracts/subtask';
import { SubtaskLoop } from './loop';
import { BEGIN, next, type Turn } from './next';
import { SubtaskRun } from './run';

export { HOST_RULES } from './host-rules';
export type { SubtaskInput } from '../../contracts/subtask';
export type { SubtaskCarry } from '../../contracts/subtask';

/** Runs one subtask to a TaskResult. The function name is the workflow type: do not rename. */
export async function subtask(input: SubtaskInput): Promise<TaskResult> {
  const run = new SubtaskRun(input);
  run.handle();
  // the agent resolved at submission (or carried) needs no await: most subtasks
  const r = run.openKnown() ?? (await run.open());
  if ('unresolved' in r) return r.unresolved;
  const loop = new SubtaskLoop(run, r);

  for (let turn: Turn = BEGIN; ;) {
    const action = next(r, turn, loop.context);
    if (action.kind === 'finish') return loop.finish(action);
    turn = await loop.perform(action);
  }
}
