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
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  log,
  patched,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { PreviousStage } from '../../activities';
import type { AgentManifest, Budget, FailureReason, TaskResult, TaskSpec } from '../../schemas';
import type { EventTarget } from '../job/events';
import { cancelSignal, grantSignal, stopSignal, subtaskMessages, subtaskStatusQuery } from '../messages';
import { snapshot, topUp } from '../../core/budget-ledger';
import { MAX_CARRY_BYTES, msLeft } from '../../core/engine-limits';
import { agentLabel, jsonBytes } from '../../core/task-results';
import { TENANT_KEY } from '../../core/search-attributes';
import { stepQueueFor } from '../../core/names';
import { setLogContext } from '../log-context';
import { subtaskDetails } from '../ui-details';
import { RoleHost } from '../role-host';
import { FALLBACK_PATCH } from '../fallbacks';
import { readResolved, submittedRouting } from '../routing';
import { classify } from './classify';
import { fallbackUnresolved, leaveAgent, mayFallBack, switchTo, takeFallback } from './fallback';
import { beforeStep, budgetHalt, cannotCarry, continuesAsNew, halt, pastDeadline, stepsLeft } from './halt';
import { hostRules } from './host-rules';
import { applyRoleNext, awaitsSummary, summaryReprompt, type Reprompted } from './reprompt';
import { notResolvedResult, taskResult } from './result';
import { finishRun, judgeActivity, resolveAgent, runStep, StepCutter, stepOptions, stepPolicyOf } from './runtime';
import { carryOf, elapsedSeconds, newState, resolved, spentAxes, type RunningState, type SubtaskCarry } from './state';
import { applyOutcome, stepInput } from './step';
import { applyStopHit, applyVerdict, checkStops, judgeFailed, judgeInput } from './stops';
import {
  afterBudgetWait,
  afterWait,
  approvalNeeded,
  delivered,
  forStep,
  questionOf,
  toolApproval,
  undelivered,
  waitRule,
  needMoreInformation,
  resumeWithAnswer,
  type ItemSpec,
} from './inbox';
import { handleHumans, INBOX_BUDGET_PATCH, messagesReceived, waitForHuman, type InboxTarget } from './waits';

export { HOST_RULES } from './host-rules';
export type { SubtaskCarry } from './state';

/** Input of the subtask workflow. */
export interface SubtaskInput {
  task: TaskSpec;
  jobId: string;
  /** The budget this subtask may spend: the lower of its own and what its job had left. */
  allocation: Budget;
  /** In a pipeline: the previous stage's result, handed to the agent with every step. */
  previous?: PreviousStage;
  /** The tenant's agent lane: the task queue its steps run on (default: the workflow's own); a pooled agent's on `<lane>.pool-<pool>`. */
  agentQueue?: string;
  /** The agent's manifest, resolved at submission: no `resolveAgent` activity (absent: resolved here). */
  manifest?: AgentManifest;
  /** Wall-clock deadline (epoch ms, the job's): the subtask halts there with `timeout` and its work. */
  deadline?: number;
  /** Ceiling on one step's worst case (timeout × attempts + backoff); the policy is clamped to it. */
  stepCeilingSeconds?: number;
  /** Longest a step waits for a worker to start it, then `agent_unavailable` (0: no bound). @default 300 */
  stepScheduleToStartSeconds?: number;
  /** Continue as new after this many steps in one run (tests lower it); history size decides otherwise. */
  stepsPerRun?: number;
  /** Set by the previous run of a long loop (continue-as-new): everything the loop had. */
  carry?: SubtaskCarry;
  /** The root job's event stream: each step writes its event there. */
  events?: EventTarget;
  /**
   * Set by jobs since subtasks show their outcome in the UI: the run upserts its outcome's
   * search attributes, and a failure fails the run. Runs started before complete as they
   * always did, so their histories replay: the input decides, not a patch marker (which
   * would cost two events per subtask).
   */
  showOutcome?: boolean;
  /** The host rules this run enforces (HOST_RULES when a job starts it); absent: none of them (host-rules.ts). */
  hostRules?: number;
  /** The job's model when this subtask started: its llm agent runs on it (a later switch does not reach it). */
  model?: string;
  /** The job's output-token cap of one model turn (a role's lower cap stays). */
  maxOutputTokens?: number;
}

/** Runs one subtask to a TaskResult. The function name is the workflow type: do not rename. */
export async function subtask(input: SubtaskInput): Promise<TaskResult> {
  const { task, jobId, previous, deadline, carry, agentQueue } = input;
  const rules = hostRules(input.hostRules, task.stopConditions);
  const s = newState(input, Date.now());
  const tenant = workflowInfo().typedSearchAttributes.get(TENANT_KEY) ?? input.events?.tenant ?? 'default';
  const ledgerNow = () => snapshot(s.ledger, elapsedSeconds(s, Date.now()));
  /** The UI's current details: step, attempts, spend against the budget, the last error. */
  const showDetails = () => {
    const { agentId, phase, steps, attempts, routing } = s;
    setCurrentDetails(
      subtaskDetails({ taskId: task.id, agentId, phase, steps, attempts, ledger: ledgerNow(), lastError: s.errors.at(-1), routing }),
    );
  };
  function finish(result: TaskResult): TaskResult {
    s.phase = 'done';
    showDetails();
    return finishRun(result, tenant, input.showOutcome);
  }
  setLogContext({ agent: s.agentId });
  setHandler(stopSignal, () => void (s.stopRequested = true), { description: subtaskMessages.stop });
  const cutter = new StepCutter();
  setHandler(
    cancelSignal,
    () => {
      s.cancelRequested = true;
      cutter.cut();
    },
    { description: subtaskMessages.cancel },
  );
  setHandler(grantSignal, ({ add }) => (topUp(s.ledger, add), showDetails()), { description: subtaskMessages.grant });
  setHandler(
    subtaskStatusQuery,
    () => ({
      id: task.id,
      agentId: s.agentId,
      phase: s.phase,
      steps: s.steps,
      ledger: ledgerNow(),
      ...(s.hitl.pending ? { waitingOn: s.hitl.pending.id } : {}),
    }),
    { description: subtaskMessages.status },
  );
  handleHumans(s);
  const inbox: InboxTarget = { tenant, jobId: input.events?.jobId ?? jobId, taskId: task.id };
  showDetails();

  /** The next fallback agent's manifest; those that cannot be resolved are recorded and skipped. */
  async function nextFallback(): Promise<AgentManifest | undefined> {
    for (let id = takeFallback(s); id !== undefined; id = takeFallback(s)) {
      try {
        return readResolved(await resolveAgent({ agent: id, question: task.question, params: task.params, lane: agentQueue })).manifest;
      } catch (err) {
        fallbackUnresolved(s, id, classify(err, 1));
      }
    }
    return undefined;
  }

  // a role task: the role says which agent plays it, and the host holds the task until bootstrap
  let roleHost: RoleHost | undefined;
  let r: RunningState;
  try {
    if (task.role)
      roleHost = await RoleHost.open(task, { model: input.model, maxOutputTokens: input.maxOutputTokens, previous }, carry?.role);
    // a continued run keeps the agent it had: routing must not pick another one halfway
    if (carry) r = resolved(s, carry.manifest);
    else if (input.manifest) r = resolved(s, input.manifest, submittedRouting(task, input.manifest));
    else if (roleHost?.manifest) r = resolved(s, roleHost.manifest, { agent: roleHost.manifest.id, reason: `plays role ${task.role}` });
    else {
      const found = readResolved(
        await resolveAgent({ agent: task.agent ?? '', question: task.question, params: task.params, scope: task.scope, lane: agentQueue }),
      );
      if (!task.fallback && found.fallbacks) s.fallbacks = found.fallbacks;
      r = resolved(s, found.manifest, found.routing);
    }
  } catch (err) {
    const f = classify(err, 1);
    let next: AgentManifest | undefined;
    if (mayFallBack(s, f.reason, pastDeadline(deadline, Date.now())) && patched(FALLBACK_PATCH)) {
      leaveAgent(s, agentLabel(task), f.reason, f.message);
      s.errors.push(f.message);
      next = await nextFallback();
    }
    if (!next) return finish(notResolvedResult(s, task, f, Date.now()));
    r = resolved(s, next, { agent: next.id, reason: `fallback after ${f.reason} of ${agentLabel(task)}` });
  }
  setLogContext({ agent: r.agentId });
  showDetails();
  const policyOf = (m: AgentManifest) => stepPolicyOf(task, m, input.stepCeilingSeconds);
  let policy = policyOf(r.manifest);
  // a pooled agent's steps go to its pool's queue on the lane: read from the manifest of the moment
  const stepQueue = () => (r.manifest.pool ? stepQueueFor(agentQueue ?? workflowInfo().taskQueue, r.manifest.pool) : agentQueue);
  const { model, maxOutputTokens, events, stepScheduleToStartSeconds } = input;
  const step = { workflowId: workflowInfo().workflowId, task: { ...task, job: undefined }, previous, events, model, maxOutputTokens };
  const retryLog = (p: Reprompted) => log.info('RETRY', { event: 'RETRY', step: r.steps, attempt: 2, maxAttempts: 2, ...p });

  /** With `budgetWaitSeconds`, a spent budget waits that long for a top-up before halting (never a role child); true when it may go on. */
  async function waitForTopUp(): Promise<boolean> {
    const wait = task.budgetWaitSeconds ?? 0;
    if (wait <= 0 || roleHost) return false;
    log.info('subtask waiting for a budget top-up', { jobId, taskId: task.id, waitSeconds: wait });
    const refilled = () => spentAxes(r, Date.now()).length === 0;
    if (patched(INBOX_BUDGET_PATCH)) {
      // budget.reached on the job's stream and in the inbox: a top-up ends the wait, a rejection gives up
      const detail = { spent: spentAxes(r, Date.now()), ledger: ledgerNow() };
      await waitForHuman(
        r,
        { kind: 'budget', reason: 'budget', detail },
        { timeoutSeconds: wait, onTimeout: 'fail' },
        inbox,
        deadline,
        refilled,
      );
      return afterBudgetWait(r, refilled());
    }
    r.phase = 'waiting_for_budget';
    const waitMs = Math.min(wait * 1000, msLeft(deadline, Date.now()));
    await condition(() => refilled() || r.stopRequested || r.cancelRequested, Math.max(1, waitMs)).catch(() => false);
    r.phase = 'running';
    return refilled() && !r.stopRequested && !r.cancelRequested;
  }

  /** After the agent failed for good (or its circuit is open): the next fallback agent takes over. False when none can. */
  async function switchAgent(why: FailureReason, message: string): Promise<boolean> {
    if (!mayFallBack(r, why, pastDeadline(deadline, Date.now())) || !patched(FALLBACK_PATCH)) return false;
    leaveAgent(r, r.manifest.id, why, message);
    const next = await nextFallback();
    // every fallback left failed to resolve: agentsTried already ends with this agent and those
    if (!next) {
      r.triedAll = true;
      return false;
    }
    log.info('subtask falls back to another agent', { jobId, taskId: task.id, from: r.manifest.id, to: next.id, reason: why });
    switchTo(r, next, why);
    policy = policyOf(next);
    setLogContext({ agent: r.agentId });
    showDetails();
    return true;
  }

  /** Waits for a human (or the parent) on `spec`; true when the loop goes on, false when it ended (`reason` set). */
  async function askHuman(spec: ItemSpec): Promise<boolean> {
    log.info('subtask waits for a decision', { jobId, taskId: task.id, kind: spec.kind, reason: spec.reason });
    showDetails();
    const item = await waitForHuman(r, spec, waitRule(task.approval), inbox, deadline);
    const next = afterWait(r, item);
    showDetails();
    if (next === 'fallback' && !(await switchAgent('timeout', r.errors.at(-1)!))) halt(r, 'timeout');
    return !r.reason;
  }

  /** The stop conditions after a step; rubrics go to the judge when nothing else holds. True when the loop ends. */
  async function stopped(): Promise<boolean> {
    const check = checkStops(r, task, rules, Date.now());
    let hit = check.kind === 'hit' ? check.hit : null;
    if (check.kind === 'judge') {
      try {
        hit = applyVerdict(
          r,
          rules,
          check.stop,
          await judgeActivity(agentQueue)(judgeInput(r, task, check.rubrics, workflowInfo().workflowId, Date.now())),
        );
      } catch (err) {
        hit = judgeFailed(r, classify(err, 2).message);
      }
    }
    if (!hit) return false;
    log.info('subtask stopped by a stop condition', { jobId, taskId: task.id, condition: hit.condition.text, steps: r.steps });
    return applyStopHit(r, hit) === 'halt';
  }

  while (!r.done) {
    let check = beforeStep(r, deadline, Date.now());
    if (check === 'budget_spent')
      check = rules.haltOnBudget !== undefined || !(await waitForTopUp()) ? budgetHalt(r, rules, Date.now()) : stepsLeft(r);
    if (check === 'out_of_steps' && (await switchAgent('agent_error', r.errors.at(-1)!))) continue;
    if (check === 'out_of_steps') halt(r, 'agent_error');
    if (r.reason) break;
    if (continuesAsNew(r, workflowInfo(), input.stepsPerRun)) {
      // a long loop goes on in a fresh run before its history nears Temporal's limits
      await condition(allHandlersFinished);
      const next: SubtaskInput = { ...input, carry: carryOf(r, rules, task, roleHost?.carry()) };
      const bytes = jsonBytes(next);
      if (bytes <= MAX_CARRY_BYTES) {
        log.info('subtask continues as new', { jobId, taskId: task.id, steps: r.steps, runs: next.carry!.runs });
        await continueAsNew<typeof subtask>(next);
      }
      if (cannotCarry(r, workflowInfo(), bytes)) break;
    }
    const approval = approvalNeeded(r, task.approval);
    if (approval) {
      if (!(await askHuman(approval))) break;
      continue;
    }
    const awaitingSummary = awaitsSummary(r);
    const now = Date.now();
    const options = stepOptions({
      task,
      agentId: r.manifest.id,
      policy,
      queue: stepQueue(),
      deadline,
      scheduleToStartSeconds: stepScheduleToStartSeconds,
      now,
    });
    const human = forStep(r);
    const sent = {
      ...stepInput(r, { ...step, maxAttempts: policy.retry.maxAttempts, role: roleHost?.stepFields() }, now),
      ...human,
      ...(r.hitl.approvedTools.length ? { approvedTools: r.hitl.approvedTools } : {}),
    };
    const outcome = await runStep(options, sent, sent.budgetLeft.latencySeconds, () => r.cancelRequested, cutter, rules.bookCutSteps);
    if (outcome.kind === 'failed' && outcome.failure.approvalTools) {
      // the agent did not run: the step waits for its tools' approval, then runs again
      r.attempts += outcome.failure.attempts;
      if (!(await askHuman(toolApproval(r, outcome.failure.approvalTools)))) break;
      continue;
    }
    if (outcome.kind === 'ok') {
      delivered(r, human, sent.step);
      if (human.messages) await messagesReceived(inbox, sent.step, human.messages);
    }
    const where = {
      pastDeadline: pastDeadline(deadline, Date.now()),
      queue: stepQueue() ?? workflowInfo().taskQueue,
      scheduleToStartSeconds: stepScheduleToStartSeconds,
    };
    const after = applyOutcome(r, outcome, awaitingSummary, where);
    if (after.kind === 'halt') break;
    if (after.kind === 'failed') {
      if (await switchAgent(after.failure.reason, after.failure.message)) continue;
      halt(r, after.failure.reason);
      break;
    }
    showDetails();
    if (after.kind === 'again') {
      if (after.reprompted) retryLog(after.reprompted);
      continue;
    }
    if (after.out.ask) {
      // a question instead of a result: the next step gets the answer
      if (!(await askHuman(questionOf(r, after.out.ask)))) break;
      continue;
    }
    const role = roleHost ? applyRoleNext(r, await roleHost.afterStep(after.out)) : 'go';
    if (role === 'halt') break;
    if (role !== 'go') {
      retryLog(role);
      continue;
    }
    const more = task.allowQuestions && roleHost ? needMoreInformation(after.out) : null;
    if (more) {
      // the role's need-more-information becomes a question: the answer goes back to it, and it goes on
      if (!(await askHuman(questionOf(r, more)))) break;
      resumeWithAnswer(r);
      continue;
    }
    const summary = summaryReprompt(r, task, rules, Date.now());
    if (summary) retryLog(summary);
    else if (await stopped()) break;
  }

  undelivered(r);
  if (r.reason) log.info('subtask halted', { jobId, taskId: task.id, agentId: r.agentId, reason: r.reason, steps: r.steps });
  return finish(
    taskResult(r, { task, rules, jobId: input.events?.jobId ?? jobId, now: Date.now(), finishRole: roleHost?.finishResult.bind(roleHost) }),
  );
}
