/**
 * Spend under one budget, on the fake provider (scripts/fake-provider.ts, in this process) with two
 * models: `cheap` (a tenth of the price) and `pricey`. One run, one dev server, the Delegate workers
 * in this process; each scenario is an entry of SCENARIOS, so more are added as rows of the list:
 *
 *   (a) a 50-child fan-out of one-turn subtasks (every third on `pricey`, questions of varied length,
 *       so spend per child varies about thirtyfold), 10 at once, `allocation: "fair"` vs `"greedy"`,
 *       under an ample budget (fifty of the priciest steps) and a tight one (about 25 mean steps).
 *       Subtasks finished, min / median / max spend per child, starved children: a child that ran on
 *       a grant below its own step's spend, or was refused while the job ended with a step of its own
 *       agent unspent (that agent's mean step in the run: a pricey task is not starved by the job
 *       keeping less than a pricey step).
 *
 *   (b) down-shift with a quality floor: 60 one-turn subtasks on `ladder-pricey` (40 $/MTok) under a
 *       budget of about 20 of them, pinned to it, then with the ladder pricey → cheap (4 $/MTok, 15%
 *       of its answers wrong) → poor (1 $/MTok, 60% wrong) and a floor of 0.9, after
 *       40 checked tasks of each measured their quality. Subtasks finished, and quality: the share of
 *       the subtasks that ran whose answer passed the exact-answer check (output schema, one re-prompt).
 *       Goal (b): at least 30% more finished, at ≥95% of the pinned run's quality.
 *
 *   (c) 200 one-turn subtasks on `tail` (two jobs of 100, 20 at once), a provider whose p99 is 10× its
 *       p50 (1 s a call, 3% of them 10 s, the same calls in both runs): without hedging, then with
 *       `hedge: { afterP: 0.9 }` (the p90 measured by the first run, from the record). Task latency
 *       p50 / p99 and the spend: booked, and billed as the provider counts it (also the input of the
 *       calls a cancel cut). Goal (c): p99 at least halved for at most 15% more spend.
 *
 *   (d) a 20-child fan-out with the identical-subtask cache (`cache: { ttlSeconds }`), run twice as two
 *       jobs of the same spec: the second is served from the record. Each run's spend and job time.
 *
 *   (e) a replay of a recorded job against the cheap model: 20 one-turn subtasks on `pricey` submitted
 *       through the API (an app on this bench's workers and record, tenant `bench` by its key), finished
 *       and archived, then `POST /v1/jobs/{jobId}/replay` with `agent: "cheap"` and the comparison
 *       `GET /v1/jobs/{replayId}/comparison` answers: subtasks compared, outputs equal, cost and latency
 *       ratios (replay / source), and each side's spend per child.
 *
 * Goal (a): no child starved under fair, at both budgets. The tight runs come after the ample ones,
 * whose archives taught the record each agent's step: a task is granted at least its agent's step
 * from the first wave on (api/jobs/step-floors.ts, as the API reads it at submission), and what the
 * job cannot pay is refused. Goal (d): the second run at $0, in under 10% of the first's time.
 *
 *   npm run bench -- spend   (BENCH_SPEND_LATENCY_MS, default 200)
 */
import type { Client } from '@temporalio/client';
import { builtinAgents, createAgentRegistry } from '../activities';
import { createLlmAgent } from '../activities/agents/llm';
import type { AllocationMode } from '../core/allocation';
import { agentQueueFor } from '../core/names';
import type { JobResult, TaskResult } from '../schemas';
import { fakeProviderAgent, startFakeProvider } from '../scripts/fake-provider';
import { bundleWorkflows } from '../workers/worker';
import { delegationJob, type JobInput } from '../workflows/delegation-job';
import { patientResult } from './delegate-runs';
import { resolveDownshifts } from '../api/downshift';
import { recordedStepFloors } from '../api/jobs/step-floors';
import { runManifest } from '../core/routing';
import { benchRecord, median, percentile, quietRuntime, report, round, sleep, withDelegateWorkers, withTemporal } from './lib';
import { buildApp } from '../api/app';
import { loadConfig } from '../config/config';
import { loadTenants } from '../config/tenants';
import type { JobComparison } from '../schemas/replay';

const LATENCY_MS = Number(process.env.BENCH_SPEND_LATENCY_MS ?? 200);
const QUEUE = 'bench-spend';
const TENANT = 'bench';
/** Price per million tokens (input and output alike) of each model. */
const PRICES = { cheap: 4, pricey: 40, tail: 4 } as const;

/** One row of the table: a scenario's side and what it measured. */
type Row = (string | number)[];
/** A scenario: its rows and its raw figures. */
interface Scenario {
  id: string;
  run(client: Client): Promise<{ rows: Row[]; data: unknown }>;
}

quietRuntime();
const fake = await startFakeProvider({ latencyMs: LATENCY_MS, wrongRate: ladderWrongRates() });
const agents = Object.entries(PRICES).map(([id, perMTok]) =>
  fakeProviderAgent(fake.url, id, { maxTokensPerStep: 16, pricing: { inputPerMTok: perMTok, outputPerMTok: perMTok } }),
);
const registry = createAgentRegistry([...builtinAgents, ...agents.map((a) => createLlmAgent(a)), ...ladderModels(fake.url)]);

/** n one-turn tasks: every third on `pricey`, the question's length (so its input tokens) varied. */
const fanoutTasks = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: `t${String(i).padStart(3, '0')}`,
    question: `question ${i}: ${'why '.repeat(10 + ((i * 37) % 90))}`,
    agent: i % 3 === 0 ? 'pricey' : 'cheap',
  }));

let seq = 0;
/**
 * Starts a job as the API would (`agentIds` resolved to their manifests, the spec's ladders and each
 * agent's step floor from the bench's record, the tenant's lane): its handle and its input.
 */
async function startAsTheApi(client: Client, spec: Omit<JobInput['spec'], 'jobId'>, agentIds: string[]) {
  const full = { ...spec, jobId: `spend-${++seq}` };
  const agents = Object.fromEntries(agentIds.map((id) => [id, runManifest(registry.get(id)!.manifest)]));
  const stats = (await benchRecord()).stats;
  const ladders = await resolveDownshifts(full, registry, stats, TENANT);
  const floors = await recordedStepFloors(full, agents, stats, TENANT);
  const input: JobInput = {
    spec: full,
    tenant: TENANT,
    maxDepth: 3,
    agentQueue: agentQueueFor(QUEUE, TENANT),
    agents,
    ...ladders,
    ...floors,
  };
  const handle = await client.workflow.start(delegationJob, { taskQueue: QUEUE, workflowId: `job/${TENANT}/${full.jobId}`, args: [input] });
  return { handle, input };
}

/** Runs a fan-out as the API starts one (agents resolved, the tenant's lane) and reads each child's grant from its start. */
async function runFanout(client: Client, spec: Omit<JobInput['spec'], 'jobId'>) {
  const { handle } = await startAsTheApi(client, spec, Object.keys(PRICES));
  const result = await patientResult<JobResult>(handle);
  const grants = new Map<string, number>();
  for (const t of spec.tasks) {
    const h = await client.workflow
      .getHandle(`${handle.workflowId}/${t.id}`)
      .fetchHistory()
      .catch(() => undefined);
    const data = h?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
    if (data) grants.set(t.id, (JSON.parse(Buffer.from(data).toString('utf8')) as JobInput).allocation?.costUsd ?? 0);
  }
  return { result, grants };
}

/** Whether a child that ran was starved: its grant could not pay its own step (its spend per step). */
const starvedRun = (r: TaskResult, grant: number) => grant < r.metrics.costUsd / r.metrics.steps;

/** (a): 50 children under one budget, fair vs greedy, at a budget of a step each and at about a quarter of that. */
const fanout50: Scenario = {
  id: 'a',
  async run(client) {
    const tasks = fanoutTasks(50);
    const rows: Row[] = [];
    const data: Record<string, unknown> = {};
    // ample: fifty of the priciest steps (~5,000 µ$); tight: about 25 mean steps, so the budget binds
    for (const [name, budget] of [
      ['ample', 0.25],
      ['tight', 0.035],
    ] as const) {
      for (const allocation of ['fair', 'greedy'] as AllocationMode[]) {
        const { result, grants } = await runFanout(client, {
          pattern: 'fanout',
          budget: { costUsd: budget },
          maxParallel: 10,
          allocation,
          tasks,
        });
        const ran = result.results.filter((r) => r.metrics.steps > 0);
        const spend = ran.map((r) => r.metrics.costUsd);
        const spent = spend.reduce((a, b) => a + b, 0);
        const refused = result.budget?.refused ?? [];
        // refused while the job ended with a step of its own agent unspent (its mean step in this run) is starved too
        const meanStep = (rs: TaskResult[]) =>
          rs.length > 0 ? rs.reduce((n, r) => n + r.metrics.costUsd, 0) / rs.reduce((n, r) => n + r.metrics.steps, 0) : 0;
        const step = meanStep(ran);
        const agentOf = new Map(tasks.map((t) => [t.id, t.agent]));
        const stepOn = (agent: string | undefined) => {
          const on = ran.filter((r) => agentOf.get(r.id) === agent);
          return on.length > 0 ? meanStep(on) : step;
        };
        const starvedRefused = refused.filter((id) => budget - spent >= stepOn(agentOf.get(id))).length;
        const starved = ran.filter((r) => starvedRun(r, grants.get(r.id) ?? 0)).length + starvedRefused;
        const finished = result.results.filter((r) => r.status === 'success').length;
        const usd = (x: number) => round(x * 1e6, 0);
        const goal = allocation === 'fair';
        rows.push([
          `(a) 50 children, ${name} budget, ${allocation}`,
          finished,
          refused.length,
          spend.length ? `${usd(Math.min(...spend))} / ${usd(median(spend))} / ${usd(Math.max(...spend))}` : '-',
          `${usd(spent)} of ${usd(budget)}`,
          starved,
          round(spent / budget, 2),
          goal ? 'no child starved' : '-',
          goal ? (starved === 0 ? 'yes' : 'no') : '-',
        ]);
        data[`${name}-${allocation}`] = { budget, finished, refused, spent, step, starved, grants: Object.fromEntries(grants) };
      }
    }
    return { rows, data };
  },
};

/** (b)'s models: price per million tokens, and the share of answers that are wrong (`wrongRate` of the fake); a function, as the registry above reads it first. */
function ladder() {
  return [
    { id: 'ladder-pricey', perMTok: 40, wrong: 0 },
    { id: 'ladder-cheap', perMTok: 4, wrong: 0.15 },
    { id: 'ladder-poor', perMTok: 1, wrong: 0.6 },
  ] as const;
}
/** (b)'s agents on the fake, each on a model of its own name (declared as functions: the registry above needs them). */
function ladderModels(url: string) {
  return ladder().map(({ id, perMTok }) =>
    createLlmAgent(
      fakeProviderAgent(url, id, { model: id, maxTokensPerStep: 16, pricing: { inputPerMTok: perMTok, outputPerMTok: perMTok } }),
    ),
  );
}
/** The fake's wrong answers of (b)'s models. */
function ladderWrongRates(): Record<string, number> {
  return Object.fromEntries(ladder().map((m) => [m.id, m.wrong]));
}
/** The exact-answer check of (b): the fake's right answers start "ok: "; a wrong one is re-prompted once, then fails. */
const exactAnswer = { type: 'object', properties: { answer: { type: 'string', pattern: '^ok: ' } }, required: ['answer'] };

/** The ladder (b) ran on as the record measured it: each rung's quality, runs and step. */
let lastLadder: unknown;
/** Runs a job as the API starts one: its agents and (with `downshift`) its ladder resolved with the record's figures. */
async function runResolved(client: Client, spec: Omit<JobInput['spec'], 'jobId'>): Promise<JobResult> {
  const { handle, input } = await startAsTheApi(
    client,
    spec,
    ladder().map(({ id }) => id),
  );
  if (input.downshift) lastLadder = input.downshift.rungs.map(({ agent, quality, runs, stepUsd }) => ({ agent, quality, runs, stepUsd }));
  return patientResult<JobResult>(handle);
}

/**
 * (b): 60 one-turn subtasks on `ladder-pricey` under a budget of about 20 of them, pinned to it, then
 * with the ladder pricey → cheap → poor and a floor of 0.9. The record measures each model's quality
 * first (40 checked tasks each). Quality of a run: the share of its subtasks that ran whose answer
 * passed the exact-answer check (the record's own measure of quality).
 */
const ladderDownshift: Scenario = {
  id: 'b',
  async run(client) {
    // one job per model (a fan-out of more than 100 is batched, and its result holds no task results)
    const priceyRuns: TaskResult[] = [];
    for (const { id } of ladder()) {
      const calibration = await runResolved(client, {
        pattern: 'fanout',
        maxParallel: 20,
        tasks: Array.from({ length: 40 }, (_, i) => ({
          id: `c${i}`,
          question: `calibration ${i}: why?`,
          agent: id,
          outputSchema: exactAnswer,
        })),
      });
      if (id === 'ladder-pricey') priceyRuns.push(...calibration.results.filter((r) => r.status === 'success'));
    }
    if (priceyRuns.length === 0) throw new Error('(b): no calibration run of ladder-pricey succeeded');
    const step = priceyRuns.reduce((n, r) => n + r.metrics.costUsd, 0) / priceyRuns.length;
    const budget = round(step * 20, 6);
    const tasks = Array.from({ length: 60 }, (_, i) => ({
      id: `t${String(i).padStart(2, '0')}`,
      question: `question ${i}: why?`,
      agent: 'ladder-pricey',
      outputSchema: exactAnswer,
    }));
    const base = { pattern: 'fanout' as const, budget: { costUsd: budget }, maxParallel: 5, tasks };
    const sides = [
      { name: 'pinned to ladder-pricey', spec: base },
      {
        name: 'ladder pricey → cheap → poor, floor 0.9',
        spec: { ...base, downshift: { ladder: ladder().map((m) => m.id), threshold: 0.8, qualityFloor: 0.9 } },
      },
    ];
    const measured: { finished: number; ran: number; quality: number; spent: number; by: Record<string, number> }[] = [];
    for (const side of sides) {
      const result = await runResolved(client, side.spec);
      const ran = result.results.filter((r) => r.metrics.steps > 0);
      const finished = result.results.filter((r) => r.status === 'success').length;
      const by: Record<string, number> = {};
      for (const r of ran) by[r.agentId] = (by[r.agentId] ?? 0) + 1;
      measured.push({ finished, ran: ran.length, quality: ran.length ? finished / ran.length : 0, spent: result.metrics.costUsd, by });
    }
    const [pinned, laddered] = measured as [(typeof measured)[0], (typeof measured)[0]];
    const more = pinned.finished ? laddered.finished / pinned.finished - 1 : 0;
    const relQuality = pinned.quality ? laddered.quality / pinned.quality : 0;
    const met = more >= 0.3 && relQuality >= 0.95;
    const usd = (x: number) => round(x * 1e6, 0);
    const rows: Row[] = measured.map((m, i) => [
      `(b) 60 subtasks, ${sides[i].name}: ran ${Object.entries(m.by)
        .map(([a, n]) => `${a} ${n}`)
        .join(', ')}; quality ${round(m.quality, 3)}`,
      m.finished,
      60 - m.ran,
      '-',
      `${usd(m.spent)} of ${usd(budget)}`,
      '-',
      round(m.spent / budget, 2),
      i === 1 ? `≥30% more finished (${round(more * 100, 0)}%) at ≥95% quality (${round(relQuality * 100, 1)}%)` : '-',
      i === 1 ? (met ? 'yes' : 'no') : '-',
    ]);
    return { rows, data: { budget, step, ladder: lastLadder, pinned, laddered, more, relQuality, met } };
  },
};

/** (d): one fan-out with the cache, run twice: the second run's spend and time against the first's. */
const cachedTwice: Scenario = {
  id: 'd',
  async run(client) {
    // questions of this bench run only, so the first run finds nothing cached
    const stamp = Date.now().toString(36);
    const tasks = fanoutTasks(20).map((t) => ({ ...t, question: `${stamp} ${t.question}` }));
    const budget = 0.25;
    const runs: { spent: number; seconds: number; finished: number; cached: number; spend: number[] }[] = [];
    for (let i = 0; i < 2; i++) {
      const { result } = await runFanout(client, {
        pattern: 'fanout',
        budget: { costUsd: budget },
        maxParallel: 10,
        cache: { ttlSeconds: 3600, scope: 'tenant' },
        tasks,
      });
      const spend = result.results.map((r) => r.metrics.costUsd);
      runs.push({
        spent: result.metrics.costUsd,
        seconds: result.metrics.latencyMs / 1000,
        finished: result.results.filter((r) => r.status === 'success').length,
        cached: result.results.filter((r) => r.metrics.cached).length,
        spend,
      });
    }
    const [first, second] = runs as [(typeof runs)[0], (typeof runs)[0]];
    const ratio = second.seconds / first.seconds;
    const usd = (x: number) => round(x * 1e6, 0);
    const met = second.spent === 0 && second.cached === tasks.length && ratio < 0.1;
    const rows: Row[] = runs.map((r, i) => [
      i === 0
        ? `(d) 20 children with cache, first run: ${round(r.seconds, 2)} s`
        : `(d) the same job again: ${round(r.seconds, 2)} s (${round(ratio * 100, 1)}% of the first), ${r.cached} served from cache`,
      r.finished,
      0,
      `${usd(Math.min(...r.spend))} / ${usd(median(r.spend))} / ${usd(Math.max(...r.spend))}`,
      `${usd(r.spent)} of ${usd(budget)}`,
      '-',
      round(r.spent / budget, 2),
      i === 1 ? "$0, under 10% of the first's time" : '-',
      i === 1 ? (met ? 'yes' : 'no') : '-',
    ]);
    return { rows, data: { first, second, timeRatio: ratio } };
  },
};

/** (c): a heavy-tailed provider, without hedging and hedged past the measured p90: latency p50 / p99 and the extra spend. */
const tailHedging: Scenario = {
  id: 'c',
  async run(client) {
    const n = 200;
    const TAIL_LATENCY_MS = 1000;
    const tasks = Array.from({ length: n }, (_, i) => ({
      id: `h${String(i).padStart(3, '0')}`,
      question: `tail question ${i}`,
      agent: 'tail',
    }));
    const price = PRICES.tail / 1e6;
    const sides: {
      name: string;
      p50: number;
      p99: number;
      spent: number;
      billed: number;
      hedges: number;
      finished: number;
      spend: number[];
    }[] = [];
    // a second a call, so that the workflows' own overhead (a few hundred ms on a loaded host) is not the tail
    fake.configure({ latencyMs: TAIL_LATENCY_MS, latencyTail: { p: 0.03, factor: 10 } });
    try {
      for (const [name, hedge] of [
        ['no hedging', undefined],
        ['hedged past p90', { afterP: 0.9, maxExtraCost: 1 }],
      ] as const) {
        // the same calls draw slow in both runs: the tail's draw is of the question and its count
        fake.reset();
        // two jobs of 100: a fan-out of more than 100 runs as batches, whose results the job does not hold
        const results: TaskResult[] = [];
        let hedges = 0;
        for (const half of [tasks.slice(0, n / 2), tasks.slice(n / 2)]) {
          const { result } = await runFanout(client, {
            pattern: 'fanout',
            maxParallel: 20,
            tasks: half.map((t) => (hedge ? { ...t, hedge } : t)),
          });
          results.push(...result.results);
          hedges += result.metrics.hedges ?? 0;
        }
        const latency = results.map((r) => r.metrics.latencyMs);
        const spend = results.map((r) => r.metrics.costUsd);
        const st = fake.stats();
        sides.push({
          name,
          p50: percentile(latency, 50),
          p99: percentile(latency, 99),
          spent: spend.reduce((a, b) => a + b, 0),
          billed: (st.tokensServed.input + st.tokensServed.output + st.tokensCut) * price,
          hedges,
          finished: results.filter((r) => r.status === 'success').length,
          spend,
        });
      }
    } finally {
      fake.configure({ latencyMs: LATENCY_MS });
    }
    const [plain, hedged] = sides as [(typeof sides)[0], (typeof sides)[0]];
    const p99Ratio = hedged.p99 / plain.p99;
    const extra = hedged.spent / plain.spent - 1;
    const billedExtra = hedged.billed / plain.billed - 1;
    const met = p99Ratio <= 0.5 && extra <= 0.15 && billedExtra <= 0.15;
    const usd = (x: number) => round(x * 1e6, 0);
    const rows: Row[] = sides.map((s, i) => [
      `(c) ${n} children, p99 10× p50, ${s.name}: latency p50 ${round(s.p50, 0)} ms, p99 ${round(s.p99, 0)} ms${i === 1 ? `, ${s.hedges} hedged` : ''}`,
      s.finished,
      0,
      `${usd(Math.min(...s.spend))} / ${usd(median(s.spend))} / ${usd(Math.max(...s.spend))}`,
      `${usd(s.spent)} (billed ${usd(s.billed)}), no budget`,
      '-',
      '-',
      i === 1 ? 'p99 halved, ≤ 15% more spend' : '-',
      i === 1
        ? `${met ? 'yes' : 'no'}: p99 ×${round(p99Ratio, 2)}, spend +${round(extra * 100, 1)}% (billed +${round(billedExtra * 100, 1)}%)`
        : '-',
    ]);
    return { rows, data: { plain, hedged, p99Ratio, extra, billedExtra } };
  },
};

/** (e): a job on `pricey` through the API, archived, replayed on `cheap`: the comparison the API answers. */
const replayOnCheap: Scenario = {
  id: 'e',
  async run(client) {
    const key = 'bench-spend-replay-key';
    const config = loadConfig({ DELEGATE_TASK_QUEUE: QUEUE, DELEGATE_API_KEYS: `${TENANT}=${key}`, LOG_LEVEL: 'silent' });
    const record = await benchRecord();
    const app = await buildApp({ config, client, registry, tenants: loadTenants(config), record });
    await app.ready();
    const call = async (method: 'GET' | 'POST', url: string, payload?: object) => {
      const res = await app.inject({ method, url, payload, headers: { authorization: `Bearer ${key}` } });
      if (res.statusCode >= 300) throw new Error(`(e): ${method} ${url} answered ${res.statusCode}: ${res.body.slice(0, 500)}`);
      return res;
    };
    try {
      const jobId = `spend-${++seq}`;
      const tasks = fanoutTasks(20).map((t) => ({ ...t, agent: 'pricey' }));
      await call('POST', '/v1/jobs', { jobId, pattern: 'fanout', maxParallel: 10, tasks });
      while ((await call('GET', `/v1/jobs/${jobId}/result?waitSeconds=60`)).statusCode === 202);
      // the replay reads the finished job from the record: wait until it is archived
      for (let i = 0; !(await record.get(TENANT, jobId)); i++) {
        if (i > 600) throw new Error(`(e): job ${jobId} never archived`);
        await sleep(100);
      }
      const replayId = ((await call('POST', `/v1/jobs/${jobId}/replay`, { agent: 'cheap' })).json() as { jobId: string }).jobId;
      let res = await call('GET', `/v1/jobs/${replayId}/comparison?waitSeconds=60`);
      while (res.statusCode === 202) res = await call('GET', `/v1/jobs/${replayId}/comparison?waitSeconds=60`);
      const c = res.json() as JobComparison;
      const { compared, outputsEqual, costRatio, latencyRatio } = c.totals;
      const usd = (x: number) => round(x * 1e6, 0);
      const sides = (['source', 'replay'] as const).map((side) => {
        const spend = c.subtasks.flatMap((s) => (s[side] ? [s[side].costUsd] : []));
        return { side, spend, totals: c.totals[side] };
      });
      const rows: Row[] = sides.map(({ side, spend, totals }) => [
        side === 'source'
          ? `(e) 20 children on pricey, recorded: subtask latency ${round(totals.latencyMs / 1000, 2)} s summed, job ${round(totals.jobLatencyMs / 1000, 2)} s`
          : `(e) replayed on cheap: ${compared} compared, ${outputsEqual} outputs equal, cost ×${costRatio === null ? '-' : round(costRatio, 3)}, latency ×${latencyRatio === null ? '-' : round(latencyRatio, 2)} (job ${round(totals.jobLatencyMs / 1000, 2)} s)`,
        totals.succeeded,
        0,
        spend.length ? `${usd(Math.min(...spend))} / ${usd(median(spend))} / ${usd(Math.max(...spend))}` : '-',
        `${usd(totals.costUsd)}, no budget`,
        '-',
        '-',
        '-',
        '-',
      ]);
      return { rows, data: { jobId, replayId, totals: c.totals, subtasks: c.subtasks } };
    } finally {
      await app.close();
    }
  },
};

/** Every scenario of this bench, in order. */
const SCENARIOS: Scenario[] = [fanout50, ladderDownshift, tailHedging, cachedTwice, replayOnCheap];

const bundle = await bundleWorkflows();
const { rows, data } = await withTemporal('spend', (t) =>
  withDelegateWorkers(
    t,
    { taskQueue: QUEUE, workflowBundle: bundle, registry },
    [{ taskQueue: agentQueueFor(QUEUE, TENANT), slots: 50 }],
    async () => {
      const all = { rows: [] as Row[], data: {} as Record<string, unknown> };
      for (const s of SCENARIOS) {
        const r = await s.run(t.client);
        all.rows.push(...r.rows);
        all.data[s.id] = r.data;
      }
      return all;
    },
  ),
);
await fake.stop();

report(
  'spend',
  `Spend under one budget on the fake provider (cheap ${PRICES.cheap} $/MTok, pricey ${PRICES.pricey} $/MTok, ${LATENCY_MS} ms a turn), one run; spend in µ$`,
  ['scenario', 'finished', 'refused', 'spend/child min / median / max', 'spent of budget', 'starved', 'spent / budget', 'goal', 'met'],
  rows,
  data,
);
