/**
 * One run of the subtask workflow and what it holds beside its state: the host rules, the
 * tenant's inbox, the role host, the UI's details, its signals and queries; it resolves the
 * agent (or a fallback) and builds the result. The loop itself is next.ts (its order) and
 * loop.ts (its Temporal side).
 *
 *   open | openKnown ──> SubtaskLoop ──> result
 */
import { patched, setHandler, workflowInfo } from '@temporalio/workflow';
import type { AgentManifest, TaskResult, TaskSpec } from '../../schemas';
import { cancelSignal, grantSignal, stopSignal, subtaskMessages, subtaskStatusQuery } from '../../contracts/messages';
import type { SubtaskInput } from '../../contracts/subtask';
import { snapshot, topUp } from '../../core/budget-ledger';
import { agentLabel } from '../../core/task-results';
import { TENANT_KEY } from '../../core/search-attributes';
import { setLogContext } from '../log-context';
import { traceIdOf, withTraceId } from '../../core/trace-context';
import { subtaskDetails } from '../ui-details';
import { showCurrentDetails } from '../current-details';
import { RoleHost } from '../role-host';
import { FALLBACK_PATCH } from '../fallbacks';
import { readResolved, submittedRouting } from '../../core/routing';
import { classify } from './classify';
import { fallbackUnresolved, leaveAgent, mayFallBack, takeFallback } from './fallback';
import { pastDeadline } from './halt';
import { hostRules, type HostRules } from './host-rules';
import { notResolvedResult, taskResult } from './result';
import { finishRun, resolveAgent, StepCutter } from './runtime';
import { elapsedSeconds, newState, resolved, type RunningState, type SubtaskState } from './state';
import type { StepContext } from './step';
import { handleHumans, type InboxTarget } from './waits';

/** One run of the subtask workflow: its state, its context, and the Temporal side of its loop. */
export class SubtaskRun {
  readonly task: TaskSpec;
  readonly rules: HostRules;
  /** The loop's state (state.ts); a RunningState once the agent is known. */
  readonly s: SubtaskState;
  roleHost?: RoleHost;
  private readonly tenant: string;
  /** Where the run's inbox items and messages go. */
  readonly inbox: InboxTarget;
  /** The cancel signal's way into the step in flight. */
  readonly cutter = new StepCutter();
  /** What every step carries besides the state, built once per run (the task without its nested job). */
  readonly stepContext: Omit<StepContext, 'maxAttempts' | 'role'>;

  constructor(readonly input: SubtaskInput) {
    this.task = input.task;
    this.rules = hostRules(input.hostRules, input.task.stopConditions);
    this.s = newState(input, Date.now());
    // the job started it down-shifted: its result says so once (a carry has the note already)
    if (input.downshifted && !input.carry) this.s.notes.push(input.downshifted);
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
  private finish(result: TaskResult): TaskResult {
    this.s.phase = 'done';
    return finishRun(withTraceId(result, this.input.traceparent), this.input.showOutcome, this.input.shown);
  }

  /** The loop's result, with the work done so far. */
  result(): TaskResult {
    const { task, rules, input, roleHost } = this;
    const jobId = input.events?.jobId ?? input.jobId;
    return this.finish(taskResult(this.s, { task, rules, jobId, now: Date.now(), finishRole: roleHost?.finishResult.bind(roleHost) }));
  }

  /**
   * The agent the loop runs: the carried one (routing must not pick another halfway), the one
   * resolved at submission, the role's, or resolved now; a fallback when that fails. The result
   * when no agent can be had.
   */
  async open(): Promise<RunningState | { unresolved: TaskResult }> {
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
      if (known) return known;
      if (this.roleHost?.manifest)
        return resolved(s, this.roleHost.manifest, { agent: this.roleHost.manifest.id, reason: `plays role ${task.role}` });
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
      return resolved(s, found.manifest, found.routing);
    } catch (err) {
      const f = classify(err, 1);
      let next: AgentManifest | undefined;
      if (mayFallBack(s, f.reason, pastDeadline(input.deadline, Date.now())) && patched(FALLBACK_PATCH)) {
        leaveAgent(s, agentLabel(task), f.reason, f.message);
        s.errors.push(f.message);
        next = await this.nextFallback();
      }
      if (!next) return { unresolved: this.finish(notResolvedResult(s, task, f, Date.now())) };
      return resolved(s, next, { agent: next.id, reason: `fallback after ${f.reason} of ${agentLabel(task)}` });
    }
  }

  /** The agent when it is known without an activity or a role (carried, or resolved at submission: the common case), with no promise made for it. */
  openKnown(): RunningState | undefined {
    return this.task.role ? undefined : this.knownAgent();
  }

  /** The carried agent, else the one resolved at submission; undefined when neither is known. */
  private knownAgent(): RunningState | undefined {
    const { task, s, input } = this;
    if (input.carry) return resolved(s, input.carry.manifest);
    if (input.manifest) return resolved(s, input.manifest, submittedRouting(task, input.manifest, input.routedBy));
    return undefined;
  }

  /** The next fallback agent's manifest; those that cannot be resolved are recorded and skipped. */
  async nextFallback(): Promise<AgentManifest | undefined> {
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
}
