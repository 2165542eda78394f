/**
 * One run of the subtask loop and what it holds beside its state: the host rules, the tenant's
 * inbox, the role host, the agent's step policy, the UI's details. Its methods are the loop's
 * Temporal side — resolving the agent and its fallbacks, the waits for a human or a top-up,
 * the judge, continue-as-new, one step — each calling the pure transitions beside this file
 * in the order `subtask()` (index.ts) gives.
 *
 *   open ──> [ beforeStep ──> carryOn? ──> approval? ──> runOne ──> afterStep ]* ──> result
 */
import { allHandlersFinished, condition, continueAsNew, log, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import type { AgentStepInput } from '../../contracts/step';
import type { AgentManifest, FailureReason, TaskResult, TaskSpec } from '../../schemas';
import { cancelSignal, grantSignal, stopSignal, subtaskMessages, subtaskStatusQuery } from '../../contracts/messages';
import { snapshot, topUp } from '../../core/budget-ledger';
import { MAX_CARRY_BYTES } from '../../core/engine-limits';
import { agentLabel, jsonBytes } from '../../core/task-results';
import { TENANT_KEY } from '../../core/search-attributes';
import { providerQueueFor, stepQueueFor } from '../../core/names';
import { setLogContext } from '../log-context';
import { traceIdOf, withTraceId } from '../../core/trace-context';
import { subtaskDetails } from '../ui-details';
import { showCurrentDetails } from '../current-details';
import { RoleHost } from '../role-host';
import { FALLBACK_PATCH } from '../fallbacks';
import { readResolved, submittedRouting } from '../../core/routing';
import type { StepPolicy } from '../../core/step-policy';
import { classify } from './classify';
import { fallbackUnresolved, leaveAgent, mayFallBack, switchTo, takeFallback } from './fallback';
import { cannotCarry, continuesAsNew, pastDeadline } from './halt';
import { hostRules, type HostRules } from './host-rules';
import type { SubtaskInput } from '../../contracts/subtask';
import { delivered, forStep, toolApproval } from './inbox';
import type { Reprompted } from './reprompt';
import { notResolvedResult, taskResult } from './result';
import { finishRun, judgeActivity, resolveAgent, runStep, StepCutter, stepOptions, stepPolicyOf } from './runtime';
import { carryOf, elapsedSeconds, newState, resolved, type RunningState, type SubtaskState } from './state';
import { applyOutcome, stepInput, type AfterStep, type StepContext } from './step';
import { applyStopHit, applyVerdict, checkStops, judgeFailed, judgeInput, type JudgeCheck } from './stops';
import type { StopHit } from '../../core/stop-conditions';
import { askHuman, handleHumans, messagesReceived, type InboxTarget } from './waits';

/** What one step came to: its outcome applied, or (its tools waited for approval) `approved`: round again. */
export type StepTurn = AfterStep | { kind: 'approved' };

/** One run of the subtask workflow: its state, its context, and the Temporal side of its loop. */
export class SubtaskRun {
  readonly task: TaskSpec;
  readonly rules: HostRules;
  /** The loop's state (state.ts); `r` is the same object once the agent is known. */
  readonly s: SubtaskState;
  r!: RunningState;
  roleHost?: RoleHost;
  private policy!: StepPolicy;
  private readonly tenant: string;
  /** Where the run's inbox items and messages go. */
  readonly inbox: InboxTarget;
  private readonly cutter = new StepCutter();
  /** What every step carries besides the state, built once per run (the task without its nested job). */
  private readonly stepContext: Omit<StepContext, 'maxAttempts' | 'role'>;

  constructor(readonly input: SubtaskInput) {
    this.task = input.task;
    this.rules = hostRules(input.hostRules, input.task.stopConditions);
    this.s = newState(input, Date.now());
    this.tenant = input.shown?.tenant ?? workflowInfo().typedSearchAttributes.get(TENANT_KEY) ?? input.events?.tenant ?? 'default';
    this.inbox = {
      tenant: this.tenant,
      jobId: input.events?.jobId ?? input.jobId,
      taskId: input.task.id,
      ...(input.shown ? { labels: input.shown.labels ?? [] } : {}),
    };
    const { previous, events, model, maxOutputTokens, traceparent } = input;
    this.stepContext = {
      workflowId: workflowInfo().workflowId,
      task: { ...input.task, job: undefined },
      previous,
      events,
      model,
      maxOutputTokens,
      ...(traceparent ? { traceparent } : {}),
    };
  }

  /** The subtask's signals, query and updates: stop, cancel (which cuts a running step), grant, status, decide, steer. */
  handle(): void {
    const s = this.s;
    setLogContext({ agent: s.agentId, traceId: traceIdOf(this.input.traceparent) });
    setHandler(stopSignal, () => void (s.stopRequested = true), { description: subtaskMessages.stop });
    setHandler(
      cancelSignal,
      () => {
        s.cancelRequested = true;
        this.cutter.cut();
      },
      { description: subtaskMessages.cancel },
    );
    setHandler(grantSignal, ({ add }) => topUp(s.ledger, add), { description: subtaskMessages.grant });
    setHandler(
      subtaskStatusQuery,
      () => ({
        id: this.task.id,
        agentId: s.agentId,
        phase: s.phase,
        steps: s.steps,
        ledger: this.ledgerNow(),
        ...(s.hitl.pending ? { waitingOn: s.hitl.pending.id } : {}),
      }),
      { description: subtaskMessages.status },
    );
    handleHumans(s);
    showCurrentDetails(() => this.details());
  }

  /** The ledger's snapshot now. */
  ledgerNow() {
    return snapshot(this.s.ledger, elapsedSeconds(this.s, Date.now()));
  }

  /** The UI's current details now: step, attempts, spend against the budget, the last error. */
  details(): string {
    const { agentId, phase, steps, attempts, routing, throttledMs } = this.s;
    return subtaskDetails({
      throttledMs,
      taskId: this.task.id,
      agentId,
      phase,
      steps,
      attempts,
      ledger: this.ledgerNow(),
      lastError: this.s.errors.at(-1),
      routing,
    });
  }

  /** The run's end: `done` in the UI, the metrics sink, the outcome's search attributes (a failure fails the run). */
  finish(result: TaskResult): TaskResult {
    this.s.phase = 'done';
    return finishRun(withTraceId(result, this.input.traceparent), this.input.showOutcome, this.input.shown);
  }

  /** The loop's result, with the work done so far. */
  result(): TaskResult {
    const { task, rules, input, roleHost } = this;
    const jobId = input.events?.jobId ?? input.jobId;
    return this.finish(taskResult(this.r, { task, rules, jobId, now: Date.now(), finishRole: roleHost?.finishResult.bind(roleHost) }));
  }

  /**
   * The agent the loop runs: the carried one (routing must not pick another halfway), the one
   * resolved at submission, the role's, or resolved now; a fallback when that fails. A result
   * when no agent can be had, else null and `r` is set.
   */
  async open(): Promise<TaskResult | null> {
    const { task, s, input } = this;
    const { carry } = input;
    try {
      if (task.role)
        this.roleHost = await RoleHost.open(
          task,
          { model: input.model, maxOutputTokens: input.maxOutputTokens, previous: input.previous },
          carry?.role,
        );
      const known = this.knownAgent();
      if (known) this.r = known;
      else if (this.roleHost?.manifest)
        this.r = resolved(s, this.roleHost.manifest, { agent: this.roleHost.manifest.id, reason: `plays role ${task.role}` });
      else {
        const found = readResolved(
          await resolveAgent({
            agent: task.agent ?? '',
            question: task.question,
            params: task.params,
            scope: task.scope,
            lane: input.agentQueue,
          }),
        );
        if (!task.fallback && found.fallbacks) s.fallbacks = found.fallbacks;
        this.r = resolved(s, found.manifest, found.routing);
      }
    } catch (err) {
      const f = classify(err, 1);
      let next: AgentManifest | undefined;
      if (mayFallBack(s, f.reason, pastDeadline(input.deadline, Date.now())) && patched(FALLBACK_PATCH)) {
        leaveAgent(s, agentLabel(task), f.reason, f.message);
        s.errors.push(f.message);
        next = await this.nextFallback();
      }
      if (!next) return this.finish(notResolvedResult(s, task, f, Date.now()));
      this.r = resolved(s, next, { agent: next.id, reason: `fallback after ${f.reason} of ${agentLabel(task)}` });
    }
    this.opened();
    return null;
  }

  /**
   * The agent when it is known without an activity or a role (carried, or resolved at
   * submission: the common case): `r` is set at once and true, with no promise made for it;
   * false when `open()` must resolve it.
   */
  openKnown(): boolean {
    const known = this.task.role ? undefined : this.knownAgent();
    if (!known) return false;
    this.r = known;
    this.opened();
    return true;
  }

  /** The carried agent, else the one resolved at submission; undefined when neither is known. */
  private knownAgent(): RunningState | undefined {
    const { task, s, input } = this;
    if (input.carry) return resolved(s, input.carry.manifest);
    if (input.manifest) return resolved(s, input.manifest, submittedRouting(task, input.manifest, input.routedBy));
    return undefined;
  }

  /** The agent is known: its step policy, the log's agent, the UI's details. */
  private opened(): void {
    this.policy = stepPolicyOf(this.task, this.r.manifest, this.input.stepCeilingSeconds);
    setLogContext({ agent: this.r.agentId });
  }

  /** The next fallback agent's manifest; those that cannot be resolved are recorded and skipped. */
  private async nextFallback(): Promise<AgentManifest | undefined> {
    const { task, s } = this;
    for (let id = takeFallback(s); id !== undefined; id = takeFallback(s)) {
      try {
        return readResolved(await resolveAgent({ agent: id, question: task.question, params: task.params, lane: this.input.agentQueue }))
          .manifest;
      } catch (err) {
        fallbackUnresolved(s, id, classify(err, 1));
      }
    }
    return undefined;
  }

  /** After the agent failed for good (or its circuit is open): the next fallback agent takes over. False when none can. */
  async switchAgent(why: FailureReason, message: string): Promise<boolean> {
    const r = this.r;
    if (!mayFallBack(r, why, pastDeadline(this.input.deadline, Date.now())) || !patched(FALLBACK_PATCH)) return false;
    leaveAgent(r, r.manifest.id, why, message);
    const next = await this.nextFallback();
    // every fallback left failed to resolve: agentsTried already ends with this agent and those
    if (!next) {
      r.triedAll = true;
      return false;
    }
    log.info('subtask falls back to another agent', {
      jobId: this.input.jobId,
      taskId: this.task.id,
      from: r.manifest.id,
      to: next.id,
      reason: why,
    });
    switchTo(r, next, why);
    this.policy = stepPolicyOf(this.task, next, this.input.stepCeilingSeconds);
    setLogContext({ agent: r.agentId });
    return true;
  }

  /**
   * The stop conditions after a step, checked now; rubrics go to the judge (`judged`) when
   * nothing else holds. True when the loop ends; `judge` when only the judge can tell.
   */
  stopped(): boolean | JudgeCheck {
    const check = checkStops(this.r, this.task, this.rules, Date.now());
    if (check.kind === 'judge') return check;
    return this.haltedBy(check.kind === 'hit' ? check.hit : null);
  }

  /** The judge's verdict on the rubric stop conditions (a judge that fails is noted, the loop goes on). True when the loop ends. */
  async judged(check: JudgeCheck): Promise<boolean> {
    const { r, task, rules } = this;
    let hit: StopHit | null;
    try {
      const judge = judgeActivity(this.input.agentQueue);
      hit = applyVerdict(r, rules, check.stop, await judge(judgeInput(r, task, check.rubrics, workflowInfo().workflowId, Date.now())));
    } catch (err) {
      hit = judgeFailed(r, classify(err, 2).message);
    }
    return this.haltedBy(hit);
  }

  private haltedBy(hit: StopHit | null): boolean {
    if (!hit) return false;
    log.info('subtask stopped by a stop condition', {
      jobId: this.input.jobId,
      taskId: this.task.id,
      condition: hit.condition.text,
      steps: this.r.steps,
    });
    return applyStopHit(this.r, hit) === 'halt';
  }

  /** True when the history nears Temporal's limits: the loop goes on in a fresh run (`carryOn`). */
  mustCarry(): boolean {
    return continuesAsNew(this.r, workflowInfo(), this.input.stepsPerRun);
  }

  /** A long loop goes on in a fresh run (once `mustCarry`); true when it can neither go on here nor carry. */
  async carryOn(): Promise<boolean> {
    const { r, input } = this;
    await condition(allHandlersFinished);
    const next: SubtaskInput = { ...input, carry: carryOf(r, this.rules, this.task, this.roleHost?.carry()) };
    const bytes = jsonBytes(next);
    if (bytes <= MAX_CARRY_BYTES) {
      log.info('subtask continues as new', { jobId: input.jobId, taskId: this.task.id, steps: r.steps, runs: next.carry!.runs });
      await continueAsNew<(input: SubtaskInput) => Promise<TaskResult>>(next);
    }
    return cannotCarry(r, workflowInfo(), bytes);
  }

  /**
   * A pooled agent's steps go to its pool's queue on the lane, a limited provider's to the provider's
   * queue (every tenant's): read from the manifest of the moment.
   */
  private stepQueue(): string | undefined {
    const { agentQueue } = this.input;
    const { pool, provider } = this.r.manifest;
    if (provider !== undefined) return providerQueueFor(workflowInfo().taskQueue, provider);
    return pool ? stepQueueFor(agentQueue ?? workflowInfo().taskQueue, pool) : agentQueue;
  }

  /**
   * One step: the agent's activity with what the humans said since the last one, raced against
   * the latency budget and the cancel signal, its outcome applied. A step whose tools wait for
   * approval asks for it and goes round again.
   */
  async runOne(awaitingSummary: boolean): Promise<StepTurn> {
    const { r, task, input, policy } = this;
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
      ...stepInput(r, { ...this.stepContext, maxAttempts: policy.retry.maxAttempts, role: this.roleHost?.stepFields() }, now),
      ...human,
      ...(r.hitl.approvedTools.length ? { approvedTools: r.hitl.approvedTools } : {}),
    };
    const outcome = await runStep(options, sent, sent.budgetLeft.latencySeconds, () => r.cancelRequested, this.cutter, this.rules);
    if (outcome.kind === 'failed' && outcome.failure.approvalTools) {
      // the agent did not run: the step waits for its tools' approval, then runs again
      r.attempts += outcome.failure.attempts;
      return (await askHuman(this, toolApproval(r, outcome.failure.approvalTools))) ? { kind: 'approved' } : { kind: 'halt' };
    }
    if (outcome.kind === 'ok') {
      delivered(r, human, sent.step);
      if (human.messages) await messagesReceived(this.inbox, sent.step, human.messages);
    }
    const where = {
      pastDeadline: pastDeadline(input.deadline, Date.now()),
      queue: queue ?? workflowInfo().taskQueue,
      scheduleToStartSeconds,
    };
    return applyOutcome(r, outcome, awaitingSummary, where);
  }

  /** A re-prompt sent back to the agent, in the worker's log as a retry. */
  retryLog(p: Reprompted): void {
    log.info('RETRY', { event: 'RETRY', step: this.r.steps, attempt: 2, maxAttempts: 2, ...p });
  }
}
