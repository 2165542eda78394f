/**
 * Providers as they throttle: fan-outs of N one-turn LLM subtasks against the fake provider
 * (scripts/fake-provider.ts, in this process; each turn LATENCY_MS then CHUNKS output tokens),
 * each scenario on a dev server of its own with the Delegate workers in this process, one run:
 *
 *   (a) no limit, 50 slots: Delegate (the tenant's lane, 50 slots) vs direct calls (p-limit 50) vs bare
 *       Temporal (a child workflow per call, one activity making the same call, 50 activity slots)
 *   (b) 20 requests/s declared (the provider queue) and enforced by the fake (burst 5)
 *   (c) the same rate undeclared: the fake answers 429 + retry-after
 *   (d) tokens/min declared and enforced
 *   (e) (a)'s Delegate side with 10% transient 5xx
 *   (f) two tenants on one declared 20/s provider: A submits 2N subtasks, B 50 a second later
 *   (g) two worker processes (bench/provider-worker.ts) on one declared 20/s provider
 *
 * Ideal schedules: (a) ceil(N / 50) turns back to back; (b, c, g) the fake's bucket (burst, then the
 * rate) with the last call's own latency, (N − burst) / rate + latency; (d) the tokens past the fake's
 * initial bucket (a minute's worth) at the rate, plus a latency; (f) B at half the rate (two tenants of
 * equal weight), 50 / 10 + latency. Each scenario's agent has a key of its own, so each starts on a
 * fresh provider gate (activities/provider-gate.ts); (a) runs a second job on the same agent to show
 * the gate as the first left it. The notes say why subtasks failed (their failureReason).
 *
 *   npm run bench -- providers   (BENCH_PROVIDER_N, default 500; BENCH_PROVIDER_LATENCY_MS, default 1000;
 *                                 BENCH_PROVIDER_SCENARIOS, default abcdefg)
 */
import { Context } from '@temporalio/activity';
import type { Client, WorkflowHandle } from '@temporalio/client';
import proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pLimit from 'p-limit';
import { builtinAgents, createAgentRegistry, type AgentRegistry } from '../activities';
import { createLlmAgent } from '../activities/agents/llm';
import { languageModel } from '../activities/agents/llm-model';
import { streamTurn, type ChatMessage } from '../activities/agents/llm-provider';
import { FANOUT_FLAT_MAX_DEV_SERVER } from '../core/engine-limits';
import { agentQueueFor, providerQueueFor } from '../core/names';
import { batchesToFetch, stitchBatches } from '../core/stitching';
import { LlmAgentConfigSchema, type JobResult, type LlmAgentConfig, type TaskResult } from '../schemas';
import type { ProviderLimits } from '../schemas/provider';
import { fakeProviderAgent, startFakeProvider, type FakeProviderOptions } from '../scripts/fake-provider';
import { bundleWorkflows } from '../workers/worker';
import { delegationJob, type JobInput } from '../workflows/delegation-job';
import { providerFanout, type ProviderCallActivities } from './baseline-provider-workflows';
import { patientResult } from './delegate-runs';
import { quietRuntime, report, round, sleep, spawnTsx, stopChild, withDelegateWorkers, withTemporal, type BenchTemporal } from './lib';

const N = Number(process.env.BENCH_PROVIDER_N ?? 500);
/** The scenarios to run, by letter (e needs a: its no-fault run is a's Delegate side). */
const ONLY = new Set((process.env.BENCH_PROVIDER_SCENARIOS ?? 'abcdefg').split(''));
const LATENCY_MS = Number(process.env.BENCH_PROVIDER_LATENCY_MS ?? 1000);
const L = LATENCY_MS / 1000;
/** The physical limit of (a): slots of the lane, of the bare worker, and direct calls at once. */
const SLOTS = 50;
/** The rate of (b), (c), (f), (g): requests a second declared and enforced, and the fake's burst. */
const RATE = 20;
const BURST = 5;
/** Output tokens a turn writes = the agent's cap per step: the gate's token estimate is then exact. */
const CHUNKS = 16;
const QUEUE = 'bench-providers';
const TENANT = 'bench';
const LANE_OF = (tenant: string) => ({ taskQueue: agentQueueFor(QUEUE, tenant), slots: SLOTS });

quietRuntime();
const bundle = await bundleWorkflows();
const fake = await startFakeProvider({ latencyMs: LATENCY_MS, chunks: CHUNKS });
/** Sets the fake's behaviour for a scenario on top of the shared shape, counts zeroed. */
const provider = (o: FakeProviderOptions = {}) => {
  fake.configure({ latencyMs: LATENCY_MS, chunks: CHUNKS, ...o });
  fake.reset();
};

type AgentInput = Parameters<typeof createLlmAgent>[0];
/** An LLM agent on the fake; its own key, so its own gate in each process. */
const agentConfig = (id: string, limits?: ProviderLimits): AgentInput =>
  fakeProviderAgent(fake.url, id, { maxTokensPerStep: CHUNKS, ...(limits ? { limits } : {}) });
const question = (i: number) => `question ${i}`;
/** The messages an LLM agent's first turn sends for `question(i)`: its system prompt and the question. */
const messagesOf = (cfg: LlmAgentConfig, i: number): ChatMessage[] => [
  { role: 'system', content: cfg.systemPrompt },
  { role: 'user', content: question(i) },
];

/** One turn, the request a Delegate step makes, straight to the fake; its tokens. */
async function callOnce(cfg: LlmAgentConfig, i: number, signal = new AbortController().signal): Promise<number> {
  const turn = await streamTurn({
    model: languageModel(cfg, process.env, cfg.model),
    messages: messagesOf(cfg, i),
    tools: [],
    maxOutputTokens: cfg.maxTokensPerStep,
    signal,
    what: `bench ${cfg.id}`,
  });
  return turn.tokens.input + turn.tokens.output;
}

/** What one side of a scenario did. */
interface Outcome {
  ms: number;
  failed: number;
  refused: number;
  faults: number;
  booked: number;
  served: number;
  maxPerSecond: number;
  throttledMs?: number;
  /** Why the failed subtasks failed (failureReason: count). */
  reasons?: Record<string, number>;
}

/** The fake's counts since its last reset, with the side's own figures. */
function outcome(ms: number, failed: number, booked: number, more: Pick<Outcome, 'throttledMs' | 'reasons'> = {}): Outcome {
  const s = fake.stats();
  const served = s.tokensServed.input + s.tokensServed.output;
  return { ms, failed, refused: s.refused, faults: s.faults, booked, served, maxPerSecond: s.maxPerSecondWindow, ...more };
}

/** A job's results with its batches' fetched and stitched in (a wide fan-out keeps them in its batches). */
async function stitched(client: Client, r: JobResult): Promise<JobResult> {
  const tasks = new Map<string, TaskResult>();
  const jobs = new Map<string, JobResult>();
  await Promise.all(
    batchesToFetch(r).map(async (b) => {
      const v: unknown = await patientResult(client.workflow.getHandle(b.workflowId));
      if (b.kind === 'subtask') tasks.set(b.id, v as TaskResult);
      else jobs.set(b.id, await stitched(client, v as JobResult));
    }),
  );
  return stitchBatches(r, { tasks, jobs });
}

let seq = 0;
/** Starts a fan-out of n one-turn subtasks on `agent`, as the API starts one (agent resolved, the tenant's lane, fairness key). */
function startJob(client: Client, registry: AgentRegistry, agent: string, n: number, tenant = TENANT) {
  const jobId = `${agent}-${n}-${++seq}`;
  const input: JobInput = {
    spec: {
      jobId,
      pattern: 'fanout',
      maxParallel: Math.min(n, 1000),
      tasks: Array.from({ length: n }, (_, i) => ({ id: `t${i}`, question: question(i), agent })),
    },
    tenant,
    depth: 0,
    maxDepth: 3,
    agents: { [agent]: registry.get(agent)!.manifest },
    agentQueue: agentQueueFor(QUEUE, tenant),
    limits: { fanoutFlatMax: FANOUT_FLAT_MAX_DEV_SERVER },
    checked: true,
  };
  return client.workflow.start(delegationJob, {
    taskQueue: QUEUE,
    workflowId: `job/${tenant}/${jobId}`,
    args: [input],
    priority: { fairnessKey: tenant, fairnessWeight: 1 },
  });
}

/** Awaits a started job: its makespan from `started`, its failed subtasks (of n) and booked tokens. */
async function finish(client: Client, handle: WorkflowHandle<typeof delegationJob>, n: number, started: number) {
  const root = await patientResult(handle);
  const ms = performance.now() - started;
  const r = await stitched(client, root);
  const ok = r.results.filter((t) => t.status === 'success').length;
  const booked = r.results.reduce((s, t) => s + t.metrics.tokens, 0);
  const reasons: Record<string, number> = {};
  for (const t of r.results)
    if (t.status !== 'success') reasons[t.failureReason ?? t.status] = (reasons[t.failureReason ?? t.status] ?? 0) + 1;
  return { ms, failed: n - ok, booked, throttledMs: r.metrics.throttledMs ?? 0, reasons };
}

/** One job of n subtasks on `agent`, timed from its start, with the fake's counts. */
async function delegateSide(client: Client, registry: AgentRegistry, agent: string, n: number): Promise<Outcome> {
  const started = performance.now();
  const f = await finish(client, await startJob(client, registry, agent, n), n, started);
  return outcome(f.ms, f.failed, f.booked, { throttledMs: f.throttledMs, reasons: f.reasons });
}

/**
 * Runs `fn` on a dev server of its own with Delegate's workers in this process (the agents of
 * `configs` and the builtins; a 50-slot lane per tenant), after a warm-up job of 10 echo subtasks.
 */
function onDelegate<T>(
  name: string,
  configs: AgentInput[],
  tenants: string[],
  fn: (t: BenchTemporal, registry: AgentRegistry) => Promise<T>,
): Promise<T> {
  return withTemporal(`providers-${name}`, async (t) => {
    const registry = createAgentRegistry([...builtinAgents, ...configs.map((c) => createLlmAgent(c))]);
    return withDelegateWorkers(t, { taskQueue: QUEUE, workflowBundle: bundle, registry }, tenants.map(LANE_OF), async () => {
      for (const tenant of tenants) await (await startJob(t.client, registry, 'echo', 10, tenant)).result();
      return await fn(t, registry);
    });
  });
}

/** (a) direct: the same N calls at SLOTS at once, no Temporal. */
async function directSide(): Promise<Outcome> {
  const cfg = LlmAgentConfigSchema.parse(agentConfig('a-direct'));
  const limit = pLimit(SLOTS);
  await Promise.all(Array.from({ length: 10 }, (_, i) => limit(() => callOnce(cfg, i)))); // warm-up: connections
  provider();
  const started = performance.now();
  const settled = await Promise.allSettled(Array.from({ length: N }, (_, i) => limit(() => callOnce(cfg, i))));
  const ms = performance.now() - started;
  const ok = settled.filter((s): s is PromiseFulfilledResult<number> => s.status === 'fulfilled');
  return outcome(
    ms,
    N - ok.length,
    ok.reduce((n, s) => n + s.value, 0),
  );
}

/** (a) bare Temporal: a child workflow per call, each one activity making the call, SLOTS activity slots. */
function bareSide(): Promise<Outcome> {
  return withTemporal('providers-bare', async (t) => {
    const cfg = LlmAgentConfigSchema.parse(agentConfig('a-bare'));
    const activities: ProviderCallActivities = {
      providerCall: async ({ i }) => ({ tokens: await callOnce(cfg, i, Context.current().cancellationSignal) }),
    };
    const worker = await Worker.create({
      connection: t.workerConnection,
      taskQueue: 'bench-providers-bare',
      workflowsPath: fileURLToPath(new URL('./baseline-provider-workflows.ts', import.meta.url)),
      activities,
      maxConcurrentActivityTaskExecutions: SLOTS,
    });
    const running = worker.run();
    const run = (n: number) =>
      t.client.workflow.execute(providerFanout, { taskQueue: 'bench-providers-bare', workflowId: `bare-${n}-${++seq}`, args: [{ n }] });
    try {
      await run(10);
      provider();
      const started = performance.now();
      const r = await run(N);
      return outcome(performance.now() - started, r.failed, r.tokens);
    } finally {
      worker.shutdown();
      await running;
    }
  });
}

/** The input tokens of question(i)'s turn as the fake counts them, plus the output: to size (d)'s limit. */
const tokensOfTurn = (cfg: LlmAgentConfig, i: number) =>
  Math.ceil(messagesOf(cfg, i).reduce((n, m) => n + (m.content?.length ?? 0), 0) / 4) + CHUNKS;

/** A row of the table: figures of one side, its ideal, the goal and whether it was met. */
type Row = (string | number)[];
const s = (ms: number) => round(ms / 1000, 1);
const x = (r: number) => `${round(r, 2)}x`;
function row(scenario: string, o: Outcome, idealS: number, goal: string, met: boolean, more = ''): Row {
  const why = Object.entries(o.reasons ?? {}).map(([reason, count]) => `${count} ${reason}`);
  const notes = [more, ...why].filter(Boolean).join('; ');
  return [
    scenario,
    s(o.ms),
    round(idealS, 1),
    x(o.ms / 1000 / idealS),
    o.failed,
    o.refused,
    `${o.booked} / ${o.served}`,
    goal,
    met ? 'yes' : 'NO',
    notes,
  ];
}

const data: Record<string, unknown> = { n: N, latencyMs: LATENCY_MS, slots: SLOTS, rate: RATE, burst: BURST, chunks: CHUNKS };
const rateIdeal = (n: number) => (n - BURST) / RATE + L;
const aIdeal = Math.ceil(N / SLOTS) * L;
const rpm = { requestsPerMinute: RATE * 60 };
/** (a)'s Delegate makespan: (e)'s no-fault run. */
let noFaultMs = NaN;

/** (a) no limit, 50 slots: direct, bare Temporal, Delegate. */
async function scenarioA(): Promise<Row[]> {
  // the second job on the same agent finds the worker's gate as the first left it (its adaptive limit grown)
  const [delegate, warm] = await onDelegate('a', [agentConfig('a-open')], [TENANT], async (t, registry) => {
    provider();
    const first = await delegateSide(t.client, registry, 'a-open', N);
    provider();
    return [first, await delegateSide(t.client, registry, 'a-open', N)];
  });
  const bare = await bareSide();
  const direct = await directSide();
  noFaultMs = delegate.ms;
  data.a = { delegate, warm, bare, direct, idealS: aIdeal };
  const vs = (o: Outcome) => `${x(bare.ms / o.ms)} of bare, ${x(direct.ms / o.ms)} of direct`;
  const met = (o: Outcome) => bare.ms / o.ms >= 0.9 && o.failed === 0;
  return [
    row('a: direct (p-limit 50)', direct, aIdeal, '–', direct.failed === 0),
    row('a: bare Temporal (50 slots)', bare, aIdeal, '–', bare.failed === 0),
    row('a: Delegate (lane, 50 slots)', delegate, aIdeal, '≥0.9x of bare', met(delegate), vs(delegate)),
    row('a: Delegate, the next job (gate warm)', warm, aIdeal, '≥0.9x of bare', met(warm), vs(warm)),
  ];
}

/** (e) 10% transient 5xx, no limit: (a)'s Delegate side as the no-fault run. */
async function scenarioE(): Promise<Row[]> {
  // five attempts a step: with three, 10% independent faults leave 1 in 1,000 subtasks failing all three (an expected 0.5 of 500)
  const retry = { maxAttempts: 5, initialIntervalSeconds: 1, backoffCoefficient: 2, maximumIntervalSeconds: 30 };
  const faulty = await onDelegate('e', [{ ...agentConfig('e-open'), retry }], [TENANT], async (t, registry) => {
    provider({ faultRate: 0.1 });
    return delegateSide(t.client, registry, 'e-open', N);
  });
  data.e = { faulty, noFaultMs };
  const ratio = faulty.ms / noFaultMs;
  const goal = '0 failed, ≤1.2x no-fault';
  return [
    row(
      'e: 10% 5xx, no limit',
      faulty,
      aIdeal,
      goal,
      faulty.failed === 0 && ratio <= 1.2,
      `${x(ratio)} of no-fault (a); ${faulty.faults} 5xx; retry.maxAttempts 5`,
    ),
  ];
}

/** (b) 20/s declared and enforced. */
async function scenarioB(): Promise<Row[]> {
  const declared = await onDelegate('b', [agentConfig('b-declared', rpm)], [TENANT], async (t, registry) => {
    provider({ ...rpm, burst: BURST });
    return delegateSide(t.client, registry, 'b-declared', N);
  });
  const ideal = rateIdeal(N);
  data.b = { declared, idealS: ideal };
  const met = declared.failed === 0 && declared.refused === 0 && declared.ms / 1000 <= 1.1 * ideal;
  return [row('b: 20/s declared', declared, ideal, '0 failed, 0 429s, ≤1.1x', met, `max ${declared.maxPerSecond} in 1 s`)];
}

/** (c) the same rate undeclared: the fake answers 429 + retry-after. */
async function scenarioC(): Promise<Row[]> {
  const undeclared = await onDelegate('c', [agentConfig('c-undeclared')], [TENANT], async (t, registry) => {
    provider({ ...rpm, burst: BURST });
    return delegateSide(t.client, registry, 'c-undeclared', N);
  });
  const ideal = rateIdeal(N);
  data.c = { undeclared, idealS: ideal };
  const met = undeclared.failed === 0 && undeclared.ms / 1000 <= 1.3 * ideal;
  return [
    row('c: 20/s undeclared (429s)', undeclared, ideal, '0 failed, ≤1.3x', met, `throttled ${s(undeclared.throttledMs ?? 0)} s in all`),
  ];
}

/**
 * (d) tokens/min declared and enforced: a limit that lets two thirds of the tokens through the fake's
 * initial bucket (a minute's worth) and the last third at the rate.
 */
async function scenarioD(): Promise<Row[]> {
  const cfg = LlmAgentConfigSchema.parse(agentConfig('d-tokens'));
  const expected = Array.from({ length: N }, (_, i) => tokensOfTurn(cfg, i)).reduce((a, b) => a + b, 0);
  const tpm = Math.round(expected / 1.5);
  const tokens = await onDelegate('d', [agentConfig('d-tokens', { tokensPerMinute: tpm })], [TENANT], async (t, registry) => {
    provider({ tokensPerMinute: tpm });
    return delegateSide(t.client, registry, 'd-tokens', N);
  });
  const ideal = (Math.max(0, tokens.served - tpm) / tpm) * 60 + L;
  const plain = (tokens.served / tpm) * 60;
  data.d = { tokens, tpm, expectedTokens: expected, idealS: ideal, totalOverTpmS: plain };
  const met = tokens.failed === 0 && tokens.ms / 1000 <= 1.2 * ideal;
  return [row(`d: ${tpm} tokens/min declared`, tokens, ideal, '0 failed, ≤1.2x', met, `total / tpm = ${round(plain, 1)} s`)];
}

/** (f) two tenants on one declared provider: A 2N subtasks, B 50 a second later. */
async function scenarioF(): Promise<Row[]> {
  const fair = await onDelegate('f', [agentConfig('f-shared', rpm)], ['tenant-a', 'tenant-b'], async (t, registry) => {
    provider({ ...rpm, burst: BURST });
    const aStart = performance.now();
    const a = finish(t.client, await startJob(t.client, registry, 'f-shared', 2 * N, 'tenant-a'), 2 * N, aStart);
    await sleep(1000 - (performance.now() - aStart));
    const bStart = performance.now();
    const b = await finish(t.client, await startJob(t.client, registry, 'f-shared', 50, 'tenant-b'), 50, bStart);
    const aDone = await a;
    const reasons = { ...aDone.reasons };
    for (const [k, v] of Object.entries(b.reasons)) reasons[k] = (reasons[k] ?? 0) + v;
    return { a: aDone, b, all: outcome(aDone.ms, aDone.failed + b.failed, aDone.booked + b.booked, { reasons }) };
  });
  const share = 50 / (RATE / 2) + L;
  const all = rateIdeal(2 * N + 50);
  data.f = { ...fair, fairShareS: share, idealAllS: all };
  const b = { ...fair.all, ms: fair.b.ms, failed: fair.b.failed, booked: fair.b.booked };
  return [
    row(
      `f: tenant A, ${2 * N} subtasks (and B's)`,
      fair.all,
      all,
      '0 failed',
      fair.all.failed === 0,
      `max ${fair.all.maxPerSecond} in 1 s`,
    ),
    row(
      'f: tenant B, 50 subtasks 1 s later',
      b,
      share,
      '≤1.5x fair share',
      fair.b.failed === 0 && fair.b.ms / 1000 <= 1.5 * share,
      'from its submission; 429s, served: both tenants',
    ),
  ];
}

/** (g) two worker processes (the second: bench/provider-worker.ts) on one declared limit. */
async function scenarioG(): Promise<Row[]> {
  const agents = [agentConfig('g-declared', rpm)];
  const two = await onDelegate('g', agents, [TENANT], async (t, registry) => {
    const bundleFile = join(mkdtempSync(join(tmpdir(), 'delegate-bench-providers-')), 'bundle.js');
    writeFileSync(bundleFile, bundle.code);
    const env = {
      TEMPORAL_ADDRESS: t.server.address,
      BENCH_QUEUE: QUEUE,
      BENCH_AGENTS: JSON.stringify(agents),
      BENCH_LANES: JSON.stringify([LANE_OF(TENANT)]),
      BENCH_BUNDLE_FILE: bundleFile,
    };
    const second = await spawnTsx('bench/provider-worker.ts', env, 'provider worker ready');
    try {
      await (await startJob(t.client, registry, 'echo', 10)).result();
      provider({ ...rpm, burst: BURST });
      const o = await delegateSide(t.client, registry, 'g-declared', N);
      const described = await t.client.workflowService.describeTaskQueue({
        namespace: 'default',
        taskQueue: { name: providerQueueFor(QUEUE, 'g-declared') },
        taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
      });
      return { ...o, pollers: new Set((described.pollers ?? []).map((p) => p.identity)).size };
    } finally {
      await stopChild(second);
    }
  });
  const ideal = rateIdeal(N);
  data.g = { two, idealS: ideal };
  const goal = `0 failed, ≤${RATE + BURST} in 1 s`;
  const met = two.failed === 0 && two.maxPerSecond <= RATE + BURST;
  return [row('g: 2 worker processes, 20/s declared', two, ideal, goal, met, `max ${two.maxPerSecond} in 1 s; ${two.pollers} pollers`)];
}

const scenarios = { a: scenarioA, e: scenarioE, b: scenarioB, c: scenarioC, d: scenarioD, f: scenarioF, g: scenarioG };
const rows: Row[] = [];
try {
  for (const [letter, run] of Object.entries(scenarios)) if (ONLY.has(letter)) rows.push(...(await run()));
} finally {
  await fake.stop();
}

report(
  'providers',
  `Providers that throttle: N = ${N} one-turn subtasks, each turn ${LATENCY_MS} ms + ${CHUNKS} tokens on the fake provider, one run`,
  ['scenario', 'makespan s', 'ideal s', 'ratio', 'failed', '429s', 'booked / served tokens', 'goal', 'met', 'notes'],
  rows,
  data,
);
