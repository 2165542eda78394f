/**
 * The interpreter of the subtask loop: it performs the action `next()` (next.ts) chose — a step,
 * a wait for a human or a top-up, a fallback agent, continue-as-new, the judge, the role's review —
 * and hands back what it came to. Only Temporal work is here; what follows from it is next()'s.
 * A hedged step's delay and second agent are loop-hedge.ts's.
 *
 *   turn ──next──> action ──perform──> turn ──next──> … ──> finish: the result
 */
import { allHandlersFinished, condition, continueAsNew, log, patched, workflowInfo } from '@temporalio/workflow';
import type { AgentStepInput, AgentStepOutput } from '../../contracts/step';
import type { SubtaskInput } from '../../contracts/subtask';
import type { FailureReason, TaskResult } from '../../schemas';
import { MAX_CARRY_BYTES } from '../../core/engine-limits';
import { jsonBytes } from '../../core/task-results';
import { providerQueueFor, stepQueueFor } from '../../core/names';
import type { StepPolicy } from '../../core/step-policy';
import { setLogContext } from '../log-context';
import { FALLBACK_PATCH } from '../fallbacks';
import { classify } from './classify';
import { leaveAgent, mayFallBack, switchTo } from './fallback';
import { pastDeadline } from './halt';
import { delivered, forStep, undelivered, waitRule, type ItemSpec } from './inbox';
import type { Action, LoopContext, Then, Turn } from './next';
import type { Reprompted } from './reprompt';
import { judgeActivity, runStep, stepOptions, stepPolicyOf } from './runtime';
import type { RunManifest } from '../../core/routing';
import { LoopHedge } from './loop-hedge';
import type { SubtaskRun } from './run';
import { carryOf, type RunningState } from './state';
import { stepInput } from './step';
import { judgeInput, type JudgeCheck } from './stops';
import { messagesReceived, waitForHuman, waitForTopUp } from './waits';
import { announceDownshift, applyDownshift } from './downshift';
import { DOWNSHIFT_PATCH } from '../job/downshift';
import type { DownshiftDecision } from '../../core/downshift';

/** Performs the loop's actions for one run whose agent is known. */
export class SubtaskLoop {
  /** What next() reads besides the state. */
  readonly context: LoopContext;
  /** The agent's step policy (a fallback agent brings its own). */
  private policy: StepPolicy;
  /** A hedged task's hedges (loop-hedge.ts); none for a task without `hedge`. */
  private readonly hedge?: LoopHedge;

  constructor(
    private readonly run: SubtaskRun,
    readonly r: RunningState,
  ) {
    const { task, rules, input } = run;
    this.policy = stepPolicyOf(task, r.manifest, input.stepCeilingSeconds);
    setLogContext({ agent: r.agentId });
    this.context = {
      task,
      rules,
      deadline: input.deadline,
      stepsPerRun: input.stepsPerRun,
      role: run.roleHost !== undefined,
      // a run a worker from before the down-shift began (no marker) keeps its agent: its steps are in the history
      ...(input.downshift && patched(DOWNSHIFT_PATCH) ? { downshift: input.downshift } : {}),
      now: () => Date.now(),
      history: workflowInfo,
    };
    if (task.hedge)
      this.hedge = new LoopHedge(run, r, task.hedge, { stepQueue: (m) => this.stepQueue(m), adopted: () => this.followAgent() });
  }

  /** Performs `a` (not `finish`). */
  perform(a: Exclude<Action, { kind: 'finish' }>): Promise<Turn> {
    if (a.retry) this.retryLog(a.retry);
    switch (a.kind) {
      case 'runStep':
        return this.step();
      case 'askHuman':
        return this.ask(a.item, a.then);
      case 'waitTopUp':
        return this.topUp();
      case 'switchAgent':
        return this.switchAgent(a.why, a.message).then((ok): Turn => ({ kind: 'switched', ok, why: a.why, then: a.then }));
      case 'carry':
        return this.carry();
      case 'downshift':
        return this.downshift(a.shift);
      case 'judge':
        return this.judge(a.check);
      case 'reviewRole':
        return this.review(a.out);
    }
  }

  /** The loop's end: the messages no step took are noted, and the result has the work done so far. */
  finish(a: Action & { kind: 'finish' }): TaskResult {
    const { r, run } = this;
    const where = { jobId: run.input.jobId, taskId: run.task.id };
    if (a.retry) this.retryLog(a.retry);
    if (a.stop) log.info('subtask stopped by a stop condition', { ...where, condition: a.stop, steps: r.steps });
    undelivered(r);
    if (r.reason) log.info('subtask halted', { ...where, agentId: r.agentId, reason: r.reason, steps: r.steps });
    return run.result();
  }

  /**
   * One step: the agent's activity with what the humans said since the last one, raced against
   * the latency budget and the cancel signal.
   */
  private async step(): Promise<Turn> {
    const { r, run, policy } = this;
    const { task, input } = run;
    const now = Date.now();
    const queue = this.stepQueue();
    const scheduleToStartSeconds = input.stepScheduleToStartSeconds;
    // on a provider's queue, tenants share the provider's rate by the server's fairness: the tenant is the key
    const fairnessKey = r.manifest.provider !== undefined ? input.events?.tenant : undefined;
    const options = stepOptions({
      task,
      agentId: r.manifest.id,
      policy,
      queue,
      deadline: input.deadline,
      scheduleToStartSeconds,
      now,
      fairnessKey,
    });
    const human = forStep(r);
    const sent: AgentStepInput = {
      ...stepInput(r, { ...run.stepContext, maxAttempts: policy.retry.maxAttempts, role: run.roleHost?.stepFields() }, now),
      ...human,
      ...(r.hitl.approvedTools.length ? { approvedTools: r.hitl.approvedTools } : {}),
    };
    const { hedge } = this;
    const delayMs = hedge ? await hedge.delay() : undefined;
    const outcome =
      hedge && delayMs !== undefined
        ? await hedge.step({ options, input: sent, delayMs, now })
        : await runStep(options, sent, sent.budgetLeft.latencySeconds, () => r.cancelRequested, run.cutter, run.rules);
    if (outcome.kind === 'ok') {
      delivered(r, human, sent.step);
      if (human.messages) await messagesReceived(run.inbox, sent.step, human.messages);
    }
    const where = {
      pastDeadline: pastDeadline(input.deadline, Date.now()),
      queue: queue ?? workflowInfo().taskQueue,
      scheduleToStartSeconds,
    };
    return { kind: 'stepped', outcome, where };
  }

  /**
   * A pooled agent's steps go to its pool's queue on the lane, a limited provider's to the provider's
   * queue (every tenant's): read from the manifest of the moment (or `m`'s, a hedge's agent).
   */
  private stepQueue(m: RunManifest = this.r.manifest): string | undefined {
    const { agentQueue } = this.run.input;
    const { pool, provider } = m;
    if (provider !== undefined) return providerQueueFor(workflowInfo().taskQueue, provider);
    return pool ? stepQueueFor(agentQueue ?? workflowInfo().taskQueue, pool) : agentQueue;
  }

  /** Waits for a human (or the parent) on `item`. */
  private async ask(spec: ItemSpec, then: Then): Promise<Turn> {
    const { r, run } = this;
    log.info('subtask waits for a decision', { jobId: run.input.jobId, taskId: run.task.id, kind: spec.kind, reason: spec.reason });
    const item = await waitForHuman(r, spec, waitRule(run.task.approval), run.inbox, run.input.deadline);
    return { kind: 'asked', item, then };
  }

  /** A spent budget waits `budgetWaitSeconds` for a top-up. */
  private async topUp(): Promise<Turn> {
    const { r, run } = this;
    const { task, input } = run;
    const seconds = task.budgetWaitSeconds ?? 0;
    log.info('subtask waiting for a budget top-up', { jobId: input.jobId, taskId: task.id, waitSeconds: seconds });
    const wait = { seconds, target: run.inbox, deadline: input.deadline, ledger: () => run.ledgerNow() };
    return { kind: 'toppedUp', refilled: await waitForTopUp(r, wait) };
  }

  /** After the agent failed for good (or its circuit is open): the next fallback agent takes over. False when none can. */
  private async switchAgent(why: FailureReason, message: string): Promise<boolean> {
    const { r, run } = this;
    if (!mayFallBack(r, why, pastDeadline(run.input.deadline, Date.now())) || !patched(FALLBACK_PATCH)) return false;
    leaveAgent(r, r.manifest.id, why, message);
    const next = await run.nextFallback();
    // every fallback left failed to resolve: agentsTried already ends with this agent and those
    if (!next) {
      r.triedAll = true;
      return false;
    }
    log.info('subtask falls back to another agent', {
      jobId: run.input.jobId,
      taskId: run.task.id,
      from: r.manifest.id,
      to: next.id,
      reason: why,
    });
    switchTo(r, next, why);
    this.policy = stepPolicyOf(run.task, next, run.input.stepCeilingSeconds);
    setLogContext({ agent: r.agentId });
    return true;
  }

  /** Spend passed the ladder's threshold: the cheaper agent takes the remaining steps, and the job's stream hears of it. */
  private async downshift(d: DownshiftDecision): Promise<Turn> {
    const { r, run } = this;
    const plan = run.input.downshift!;
    applyDownshift(r, d, plan);
    this.followAgent();
    log.info('subtask down-shifts', { jobId: run.input.jobId, taskId: run.task.id, from: d.from, to: d.to.agent, share: d.share });
    if (run.input.events) await announceDownshift(run.inbox, r.steps, d, plan);
    return { kind: 'downshifted' };
  }

  /** The task went on with another agent (`r.manifest` now): its step policy and the log's agent follow. */
  private followAgent(): void {
    this.policy = stepPolicyOf(this.run.task, this.r.manifest, this.run.input.stepCeilingSeconds);
    setLogContext({ agent: this.r.agentId });
  }

  /** The loop goes on in a fresh run; back only when its state is too big to carry. */
  private async carry(): Promise<Turn> {
    const { r, run } = this;
    const { input } = run;
    await condition(allHandlersFinished);
    const carry = carryOf(r, run.rules, run.task, run.roleHost?.carry());
    const next: SubtaskInput = { ...input, carry };
    const bytes = jsonBytes(next);
    if (bytes <= MAX_CARRY_BYTES) {
      log.info('subtask continues as new', { jobId: input.jobId, taskId: run.task.id, steps: r.steps, runs: carry.runs });
      await continueAsNew<(input: SubtaskInput) => Promise<TaskResult>>(next);
    }
    return { kind: 'carried', bytes };
  }

  /** The judge's verdict on the rubric stop conditions, or why it failed. */
  private async judge(check: JudgeCheck): Promise<Turn> {
    const { r, run } = this;
    try {
      const judge = judgeActivity(run.input.agentQueue);
      const verdict = await judge(judgeInput(r, run.task, check.rubrics, workflowInfo().workflowId, Date.now()));
      return { kind: 'judged', check, verdict };
    } catch (err) {
      return { kind: 'judged', check, error: classify(err, 2).message };
    }
  }

  /** The role host's review of a completed step. */
  private async review(out: AgentStepOutput): Promise<Turn> {
    const host = this.run.roleHost;
    return { kind: 'reviewed', next: host ? await host.afterStep(out) : { kind: 'go' }, out };
  }

  /** A re-prompt sent back to the agent, in the worker's log as a retry. */
  private retryLog(p: Reprompted): void {
    log.info('RETRY', { event: 'RETRY', step: this.r.steps, attempt: 2, maxAttempts: 2, ...p });
  }
}
