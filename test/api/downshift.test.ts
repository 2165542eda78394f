/**
 * Down-shift with a quality floor, through the API against the fake provider: three models at three
 * prices, their quality measured by calibration jobs whose output schema fails a wrong answer (the
 * poorest answers wrong most of the time). A job whose budget runs low starts its remaining tasks on
 * the cheapest model above the floor, never the one below it; a task whose own budget runs low hands
 * its remaining steps down the same way; and each decision is an event and a line in the result.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobEvent, JobResult } from '../../schemas';
import { pricedModel, startFakeProviderStack, type FakeProviderStack } from '../fake-provider-stack';
import { finalResult, testRecord, uniqueId } from '../helpers';

let stack: FakeProviderStack;
let app: FastifyInstance;

/** An LLM agent on the fake, its own model name (so the fake can make its answers wrong), at a price per million tokens. */
const model = (url: string, id: string, perMTok: number) => pricedModel(url, id, perMTok, { model: id });

/** The exact-answer check: the fake's right answers start "ok: ". */
const outputSchema = {
  type: 'object',
  properties: { answer: { type: 'string', pattern: '^ok: ' } },
  required: ['answer'],
};
const LADDER = ['ds-pricey', 'ds-cheap', 'ds-poor'];
const question = (i: number) => `question ${i}: ${'why '.repeat(40)}`;

async function run(spec: object): Promise<JobResult> {
  const jobId = uniqueId('downshift');
  const res = await app.inject({ method: 'POST', url: '/v1/jobs', payload: { jobId, ...spec } });
  expect(res.statusCode, res.body).toBe(201);
  const done = await finalResult(app, jobId);
  expect(done.statusCode, done.body).toBe(200);
  return done.json() as JobResult;
}

async function eventsOf(jobId: string): Promise<JobEvent[]> {
  return (await testRecord()).events.after('default', jobId, 0);
}

let priceyTask = 0;

/** One task on ds-sloppy (always wrong) with a budget a little over a pricey task's, down `ladder` at a floor of 0.85. */
const sloppyTask = (ladder: string[]) => ({
  id: 'only',
  question: question(0),
  agent: 'ds-sloppy',
  outputSchema,
  budget: { costUsd: Math.round(priceyTask * 1.15 * 1e6) / 1e6 },
  downshift: { ladder, qualityFloor: 0.85 },
});

beforeAll(async () => {
  // ds-poor answers wrong 70% of the time: half its tasks fail even after the re-prompt
  stack = await startFakeProviderStack({ latencyMs: 10, wrongRate: { 'ds-poor': 0.7, 'ds-sloppy': 1 } }, (url) => [
    model(url, 'ds-pricey', 40),
    model(url, 'ds-cheap', 4),
    model(url, 'ds-poor', 1),
    model(url, 'ds-sloppy', 40),
  ]);
  ({ app } = stack);
  // calibration: the record measures each model's quality (and spend) on 16 checked tasks
  const calibration = await run({
    pattern: 'fanout',
    maxParallel: 16,
    tasks: LADDER.flatMap((agent) =>
      Array.from({ length: 16 }, (_, i) => ({ id: `${agent}-${i}`, question: question(i), agent, outputSchema })),
    ),
  });
  const pricey = calibration.results.filter((r) => r.agentId === 'ds-pricey');
  priceyTask = pricey.reduce((n, r) => n + r.metrics.costUsd, 0) / pricey.length;
}, 120_000);

afterAll(() => stack?.stop());

describe('down-shift with a quality floor', () => {
  it('a job past 80% of its budget starts its remaining tasks on the cheapest model above the floor, and finishes more of them', async () => {
    const spec = {
      pattern: 'fanout',
      maxParallel: 1,
      allocation: 'greedy',
      // about five pricey tasks' worth for twelve tasks
      budget: { costUsd: Math.round(priceyTask * 5 * 1e6) / 1e6 },
      tasks: Array.from({ length: 12 }, (_, i) => ({
        id: `t${String(i).padStart(2, '0')}`,
        question: question(i),
        agent: 'ds-pricey',
        outputSchema,
      })),
    };
    const pinned = await run(spec);
    const jobId = uniqueId('downshift-job');
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: { jobId, ...spec, downshift: { ladder: LADDER, qualityFloor: 0.85 } },
    });
    expect(res.statusCode, res.body).toBe(201);
    const laddered = (await finalResult(app, jobId)).json() as JobResult;
    const finished = (r: JobResult) => r.results.filter((t) => t.status === 'success').length;
    expect(finished(laddered)).toBeGreaterThan(finished(pinned));
    const shifted = laddered.results.filter((t) => t.agentId === 'ds-cheap');
    expect(shifted.length).toBeGreaterThan(0);
    // never below the floor: the poor model took nothing
    expect(laddered.results.some((t) => t.agentId === 'ds-poor')).toBe(false);
    for (const t of shifted) {
      expect(
        t.notes?.some((n) =>
          /^down-shift from ds-pricey to ds-cheap: the job spent or granted \d+% of its costUsd \(threshold 80%\)/.test(n),
        ),
      ).toBe(true);
      expect(t.routing?.reason).toMatch(/^down-shift from ds-pricey to ds-cheap/);
    }
    const events = (await eventsOf(jobId)).filter((e) => e.type === 'subtask.downshift');
    expect(events.map((e) => e.data.taskId).sort()).toEqual(shifted.map((t) => t.id).sort());
    expect(events[0].data).toMatchObject({ scope: 'job', from: 'ds-pricey', to: 'ds-cheap', threshold: 0.8, qualityFloor: 0.85 });
    expect((events[0].data.quality as { after: number }).after).toBeGreaterThanOrEqual(0.85);
  });

  it('a task past 80% of its own budget hands its remaining steps down, and says so', async () => {
    // ds-sloppy answers wrong every time: its one step is re-prompted, and the re-prompt goes to ds-cheap
    const { jobId, results } = await run({ pattern: 'fanout', tasks: [sloppyTask(['ds-sloppy', 'ds-cheap', 'ds-poor'])] });
    const [t] = results;
    expect(t.status).toBe('success');
    expect(t.agentId).toBe('ds-cheap');
    // both models' spend is the task's: the wrong answer's and the right one's
    expect(t.metrics.costUsd).toBeGreaterThan(priceyTask);
    expect(t.notes?.some((n) => /^down-shift from ds-sloppy to ds-cheap: the subtask spent \d+% of its costUsd/.test(n))).toBe(true);
    const [event] = (await eventsOf(jobId)).filter((e) => e.type === 'subtask.downshift');
    expect(event.data).toMatchObject({ taskId: 'only', scope: 'subtask', from: 'ds-sloppy', to: 'ds-cheap' });
  });

  it('never below the floor: with none above it, the task halts partial as without a ladder', async () => {
    const [t] = (await run({ pattern: 'fanout', tasks: [sloppyTask(['ds-sloppy', 'ds-poor'])] })).results;
    expect(t.agentId).toBe('ds-sloppy');
    expect(t.notes?.some((n) => n.startsWith('down-shift'))).not.toBe(true);
    expect(t.failureReason === 'budget_exhausted' || t.failureReason === 'invalid_output').toBe(true);
  });

  it('refuses a ladder naming an agent this deployment lacks or one refusing the params (422), and one on a nested job (400)', async () => {
    const bad = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: {
        pattern: 'fanout',
        downshift: { ladder: ['ds-pricey', 'nope'], qualityFloor: 0.9 },
        tasks: [{ id: 'a', question: 'q', agent: 'ds-pricey' }],
      },
    });
    expect(bad.statusCode, bad.body).toBe(422);
    expect(bad.json().errors).toEqual([{ path: 'body.downshift.ladder[1]', message: expect.stringMatching(/unknown agent "nope"/) }]);
    // as fallbacks must, every agent of the ladder takes the params of the tasks it may take over
    const params = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: {
        pattern: 'fanout',
        tasks: [{ id: 'a', question: 'q', agent: 'sim', params: { steps: 2 }, downshift: { ladder: ['sim', 'echo'], qualityFloor: 0.9 } }],
      },
    });
    expect(params.statusCode, params.body).toBe(422);
    expect(params.json().errors).toEqual([
      {
        path: 'body.tasks[0].downshift.ladder[1]',
        message: expect.stringMatching(/^task "a": agent "echo" does not take the task's params/),
      },
    ]);
    const nested = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: {
        pattern: 'fanout',
        tasks: [
          {
            id: 'a',
            question: 'q',
            job: {
              pattern: 'fanout',
              downshift: { ladder: LADDER, qualityFloor: 0.9 },
              tasks: [{ id: 'b', question: 'q', agent: 'ds-pricey' }],
            },
          },
        ],
      },
    });
    expect(nested.statusCode, nested.body).toBe(400);
  });

  it('the forecast counts the cheaper model after the threshold', async () => {
    const tasks = Array.from({ length: 12 }, (_, i) => ({ id: `t${i}`, question: question(i), agent: 'ds-pricey' }));
    const estimate = async (extra: object) => {
      const res = await app.inject({
        method: 'POST',
        url: '/v1/jobs/estimate',
        payload: { pattern: 'fanout', maxParallel: 1, budget: { costUsd: priceyTask * 6 }, tasks, ...extra },
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { job: { predicted: { costUsd: { p50: number } } } };
    };
    const plain = await estimate({});
    const laddered = await estimate({ downshift: { ladder: LADDER, qualityFloor: 0.85 } });
    expect(laddered.job.predicted.costUsd.p50).toBeLessThan(plain.job.predicted.costUsd.p50 * 0.7);
  });
});
