/**
 * The subtask: one agent working on one question, as a durable loop of steps.
 *
 *   resolve agent ──> [ beforeStep: stop? cancel? budget left? ──> step (activity, retried) ──> applyOutcome ]* ──> taskResult
 *
 * This file orchestrates only: activities, signals, waits, continue-as-new. Every rule is a
 * transition of the one `SubtaskState` (state.ts), in its own module beside this one and
 * unit-tested there. Whatever happens, the subtask returns a result with the work done so
 * far: it never throws the job's work away.
 */
import { log } from '@temporalio/workflow';
import type { TaskResult } from '../../schemas';
import { beforeStep, budgetHalt, halt, stepsLeft } from './halt';
import { approvalNeeded, needMoreInformation, questionOf, resumeWithAnswer, undelivered } from './inbox';
import type { SubtaskInput } from '../../contracts/subtask';
import { applyRoleNext, awaitsSummary, summaryReprompt } from './reprompt';
import { SubtaskRun } from './run';
import { askHuman, waitForTopUp } from './waits';

export { HOST_RULES } from './host-rules';
export type { SubtaskInput } from '../../contracts/subtask';
export type { SubtaskCarry } from '../../contracts/subtask';

/** Runs one subtask to a TaskResult. The function name is the workflow type: do not rename. */
export async function subtask(input: SubtaskInput): Promise<TaskResult> {
  const run = new SubtaskRun(input);
  const { task, rules } = run;
  run.handle();
  // the agent resolved at submission (or carried) needs no await: most subtasks
  const unresolved = run.openKnown() ? null : await run.open();
  if (unresolved) return unresolved;
  const r = run.r;

  while (!r.done) {
    let check = beforeStep(r, input.deadline, Date.now());
    if (check === 'budget_spent')
      check = rules.haltOnBudget !== undefined || !(await waitForTopUp(run)) ? budgetHalt(r, rules, Date.now()) : stepsLeft(r);
    if (check === 'out_of_steps' && (await run.switchAgent('agent_error', r.errors.at(-1)!))) continue;
    if (check === 'out_of_steps') halt(r, 'agent_error');
    if (r.reason) break;
    if (run.mustCarry() && (await run.carryOn())) break;
    const approval = approvalNeeded(r, task.approval);
    if (approval) {
      if (!(await askHuman(run, approval))) break;
      continue;
    }
    const after = await run.runOne(awaitsSummary(r));
    if (after.kind === 'halt') break;
    if (after.kind === 'failed') {
      if (await run.switchAgent(after.failure.reason, after.failure.message)) continue;
      halt(r, after.failure.reason);
      break;
    }
    if (after.kind === 'approved') continue;
    if (after.kind === 'again') {
      if (after.reprompted) run.retryLog(after.reprompted);
      continue;
    }
    if (after.out.ask) {
      // a question instead of a result: the next step gets the answer
      if (!(await askHuman(run, questionOf(r, after.out.ask)))) break;
      continue;
    }
    const role = run.roleHost ? applyRoleNext(r, await run.roleHost.afterStep(after.out)) : 'go';
    if (role === 'halt') break;
    if (role !== 'go') {
      run.retryLog(role);
      continue;
    }
    const more = task.allowQuestions && run.roleHost ? needMoreInformation(after.out) : null;
    if (more) {
      // the role's need-more-information becomes a question: the answer goes back to it, and it goes on
      if (!(await askHuman(run, questionOf(r, more)))) break;
      resumeWithAnswer(r);
      continue;
    }
    const summary = summaryReprompt(r, task, rules, Date.now());
    if (summary) run.retryLog(summary);
    else {
      const stop = run.stopped();
      if (typeof stop === 'boolean' ? stop : await run.judged(stop)) break;
    }
  }

  undelivered(r);
  if (r.reason) log.info('subtask halted', { jobId: input.jobId, taskId: task.id, agentId: r.agentId, reason: r.reason, steps: r.steps });
  return run.result();
}
