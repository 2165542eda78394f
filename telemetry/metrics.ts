/**
 * Delegate's own Prometheus metrics (prom-client): one registry per process, each with the
 * Node runtime's metrics (`process_*`, `nodejs_*`). The worker counts what its workflows and
 * activities report; the API times its routes and counts running jobs when scraped.
 *
 *   workflows ──sink────┐
 *   agentStep ──observer─┼──> WorkerMetrics.registry ──> worker /metrics (+ core's temporal_*)
 *   breaker ──at scrape──┘
 *   API routes ──onResponse──┐
 *   visibility ──at scrape───┴──> ApiMetrics.registry ──> API /metrics
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { CircuitState } from '../schemas/breaker';
import type { BudgetAxis } from '../core/budget-axes';
import { TOKEN_SPLIT, TOKEN_SPLIT_KEYS } from '../core/token-split';
import type { JobOutcome, SubtaskOutcome, VoteDecision } from '../contracts/sinks';

/** What the step activity tells the worker's metrics (activities/step/ calls it; a worker hands it `WorkerMetrics.observer`). */
export interface StepObserver {
  /** A step's attempt after the first began. */
  stepRetried(agentId: string): void;
  /** An agent's step call ended, well or not, after `seconds`. */
  stepEnded(agentId: string, ok: boolean, seconds: number): void;
  /** A call of the agent waited `waitMs` on its provider (throttled, or pacing its tokens per minute), for `reason`. */
  stepThrottled?(provider: string, agentId: string, waitMs: number, reason: string): void;
}

/** What the metrics read of a circuit breaker (activities/circuit-breaker.ts): each circuit's state on this worker. */
export interface BreakerStates {
  states(): Map<string, CircuitState>;
}

/** The breaker's states as gauge values: the higher, the fewer steps get through. */
export const CIRCUIT_STATE_VALUE: Record<CircuitState, number> = { closed: 0, half_open: 1, open: 2 };

/** A fresh registry with the Node runtime's default metrics. */
export function processRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Each budget axis's spend counter: its name (unit in it) and how a subtask's outcome measures it (by `kind`, where it is split). */
const SPEND: Record<BudgetAxis, { name: string; help: string; of: (o: SubtaskOutcome) => number; byKind?: typeof tokensByKind }> = {
  costUsd: { name: 'delegate_spend_usd_total', help: 'Money finished subtasks spent, in US dollars', of: (o) => o.costUsd },
  tokens: {
    name: 'delegate_spend_tokens_total',
    help: 'Tokens finished subtasks spent, by kind: input (cached included), output, cached_input (part of input), unsplit (tokens of agents that report no split)',
    of: (o) => o.tokens,
    byKind: tokensByKind,
  },
  toolCalls: { name: 'delegate_spend_tool_calls_total', help: 'Tool calls finished subtasks made', of: (o) => o.toolCalls },
  latencySeconds: {
    name: 'delegate_spend_latency_seconds_total',
    help: 'Wall clock finished subtasks ran, in seconds',
    of: (o) => o.latencyMs / 1000,
  },
};

/**
 * A subtask's tokens by `kind`: the split's, and `unsplit` for what no split accounts for (an agent
 * reporting only its total), so `sum without (kind) (…{kind!="cached_input"})` is the tokens axis.
 */
function tokensByKind(o: SubtaskOutcome): [kind: string, tokens: number][] {
  const split = TOKEN_SPLIT_KEYS.map((k): [string, number] => [TOKEN_SPLIT[k], o[k] ?? 0]);
  return [...split, ['unsplit', o.tokens - (o.inputTokens ?? 0) - (o.outputTokens ?? 0)]];
}

/** The worker's metrics: what workflows report through the sink, what steps and the breaker say. */
export function createWorkerMetrics(registry: Registry = processRegistry()) {
  const registers = [registry];
  const subtasks = new Counter({
    name: 'delegate_subtasks_total',
    help: 'Subtasks finished, by tenant, agent, status and failure reason ("none" on success)',
    labelNames: ['tenant', 'agent', 'status', 'failure_reason'],
    registers,
  });
  const spend = Object.fromEntries(
    Object.entries(SPEND).map(([axis, s]) => [
      axis,
      new Counter({
        name: s.name,
        help: `${s.help}, by tenant and agent`,
        labelNames: s.byKind ? ['tenant', 'agent', 'kind'] : ['tenant', 'agent'],
        registers,
      }),
    ]),
  ) as Record<BudgetAxis, Counter<'tenant' | 'agent' | 'kind'>>;
  const budgetHalts = new Counter({
    name: 'delegate_budget_halts_total',
    help: 'Subtasks halted by a spent budget axis (partial or failure), by tenant and agent',
    labelNames: ['tenant', 'agent'],
    registers,
  });
  const steps = new Counter({
    name: 'delegate_steps_total',
    help: 'Agent step calls, by agent and outcome (ok | error)',
    labelNames: ['agent', 'outcome'],
    registers,
  });
  const stepSeconds = new Histogram({
    name: 'delegate_step_duration_seconds',
    help: "Duration of agents' step calls, by agent",
    labelNames: ['agent'],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers,
  });
  const retries = new Counter({
    name: 'delegate_step_retries_total',
    help: 'Step attempts after the first (Temporal retries of a failed step), by agent',
    labelNames: ['agent'],
    registers,
  });
  const jobs = new Counter({
    name: 'delegate_jobs_total',
    help: 'Jobs finished, by pattern, status and level (root | nested)',
    labelNames: ['pattern', 'status', 'level'],
    registers,
  });
  const votes = new Counter({
    name: 'delegate_vote_decisions_total',
    help: 'Votes decided, early (before every voter answered) or not',
    labelNames: ['early'],
    registers,
  });
  const votersCancelled = new Counter({
    name: 'delegate_vote_cancelled_voters_total',
    help: 'Voters cancelled by an early vote decision',
    registers,
  });
  const savedUsd = new Counter({
    name: 'delegate_vote_saved_usd_total',
    help: 'Money early vote decisions saved (unspent allocations of cancelled voters), in US dollars',
    registers,
  });
  const throttled = new Counter({
    name: 'delegate_provider_throttled_total',
    help: "Waits of agents' calls on their provider (throttled: 429, 529, RESOURCE_EXHAUSTED, Retry-After; or pacing tokens per minute), by provider, agent and reason",
    labelNames: ['provider', 'agent', 'reason'],
    registers,
  });
  const throttledSeconds = new Histogram({
    name: 'delegate_provider_throttled_wait_seconds',
    help: "How long agents' calls waited on their provider, by provider",
    labelNames: ['provider'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
    registers,
  });
  const breakers: BreakerStates[] = [];
  new Gauge({
    name: 'delegate_circuit_breaker_state',
    help: "Each remote agent's circuit on this worker: 0 closed, 1 half-open, 2 open",
    labelNames: ['agent'],
    registers,
    collect() {
      this.reset();
      for (const b of breakers) for (const [agent, state] of b.states()) this.set({ agent }, CIRCUIT_STATE_VALUE[state]);
    },
  });

  const observer: StepObserver = {
    stepRetried: (agent) => retries.inc({ agent }),
    stepEnded(agent, ok, seconds) {
      steps.inc({ agent, outcome: ok ? 'ok' : 'error' });
      stepSeconds.observe({ agent }, seconds);
    },
    stepThrottled(provider, agent, waitMs, reason) {
      throttled.inc({ provider, agent, reason });
      throttledSeconds.observe({ provider }, waitMs / 1000);
    },
  };
  return {
    registry,
    /** Pass to the agent activities: counts steps, their duration and retries. */
    observer,
    /** Reports this breaker's states at every scrape. */
    watchBreaker(breaker: BreakerStates): void {
      breakers.push(breaker);
    },
    /** A subtask finished (from the workflow sink). */
    subtaskFinished(o: SubtaskOutcome): void {
      const who = { tenant: o.tenant, agent: o.agentId };
      subtasks.inc({ ...who, status: o.status, failure_reason: o.failureReason ?? 'none' });
      for (const [axis, s] of Object.entries(SPEND) as [BudgetAxis, (typeof SPEND)[BudgetAxis]][]) {
        for (const [kind, v] of s.byKind?.(o) ?? [[undefined, s.of(o)]])
          if (Number.isFinite(v) && v > 0) spend[axis].inc(kind ? { ...who, kind } : who, v);
      }
      if (o.failureReason === 'budget_exhausted') budgetHalts.inc(who);
    },
    /** A job finished (from the workflow sink). */
    jobFinished(o: JobOutcome): void {
      jobs.inc({ pattern: o.pattern, status: o.status, level: o.root ? 'root' : 'nested' });
      if (Number.isFinite(o.savedUsd) && o.savedUsd > 0) savedUsd.inc(o.savedUsd);
    },
    /** A vote was decided (from the workflow sink). */
    voteDecided(d: VoteDecision): void {
      votes.inc({ early: String(d.early) });
      if (d.cancelled > 0) votersCancelled.inc(d.cancelled);
    },
  };
}
/** The worker's metrics. */
export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;

/** Running root jobs per tenant, as the API counts them when scraped. */
export type RunningJobsCounter = () => Promise<Map<string, number>>;

/** The API's metrics: request latency by route, running jobs by tenant (counted at scrape time). */
export function createApiMetrics(runningJobs: RunningJobsCounter, registry: Registry = processRegistry()) {
  const registers = [registry];
  const requests = new Histogram({
    name: 'delegate_http_request_duration_seconds',
    help: 'API request latency, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  new Gauge({
    name: 'delegate_jobs_running',
    help: "Root jobs running, by tenant (Temporal's visibility, counted when scraped)",
    labelNames: ['tenant'],
    registers,
    async collect() {
      const counts = await runningJobs();
      this.reset();
      for (const [tenant, n] of counts) this.set({ tenant }, n);
    },
  });
  return {
    registry,
    /** Records one answered request. */
    requestDone(method: string, route: string, statusCode: number, seconds: number): void {
      requests.observe({ method, route, status_code: String(statusCode) }, seconds);
    },
  };
}
/** The API's metrics. */
export type ApiMetrics = ReturnType<typeof createApiMetrics>;
