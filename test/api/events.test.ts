/**
 * Live events over SSE, read by a real HTTP client from a listening API: a fan-out's and a
 * vote's events in order, a resume from Last-Event-ID on a fresh API process after the first
 * one went away mid-stream, and tenants kept apart.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobEvent } from '../../schemas';
import { fastRetry, listeningApp, uniqueId } from '../helpers';
import { authHeader } from '../tenants';

/** Reads an SSE stream to its end (or `until` says stop): the events and the ids the frames carried. */
async function readEvents(url: string, headers: Record<string, string> = {}, until?: (e: JobEvent) => boolean) {
  const res = await fetch(url, { headers: { ...authHeader('default'), ...headers } });
  if (res.status !== 200)
    return { status: res.status, events: [] as JobEvent[], ids: [] as number[], type: res.headers.get('content-type') };
  const events: JobEvent[] = [];
  const ids: number[] = [];
  const decoder = new TextDecoder();
  let buf = '';
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    let at: number;
    while ((at = buf.indexOf('\n\n')) >= 0) {
      const frame = buf.slice(0, at);
      buf = buf.slice(at + 2);
      const field = (name: string) =>
        frame
          .split('\n')
          .find((l) => l.startsWith(`${name}: `))
          ?.slice(name.length + 2);
      const data = field('data');
      if (!data) continue;
      const e = JSON.parse(data) as JobEvent;
      expect(field('event')).toBe(e.type);
      ids.push(Number(field('id')));
      events.push(e);
      if (until?.(e)) {
        await reader.cancel();
        return { status: 200, events, ids, type: res.headers.get('content-type') };
      }
    }
  }
  return { status: 200, events, ids, type: res.headers.get('content-type') };
}

/** The seqs 1..n, each once, in order, with the ids of the frames equal to them. */
function expectContiguous(r: { events: JobEvent[]; ids: number[] }, from = 1) {
  expect(r.events.map((e) => e.seq)).toEqual(r.events.map((_, i) => from + i));
  expect(r.ids).toEqual(r.events.map((e) => e.seq));
}

describe('job events over SSE', () => {
  let api: Awaited<ReturnType<typeof listeningApp>>;
  beforeAll(async () => {
    api = await listeningApp();
  });
  afterAll(async () => {
    await api?.app.close();
  });
  const submit = (app: FastifyInstance, payload: object) => app.inject({ method: 'POST', url: '/v1/jobs', payload });

  it("streams a fan-out's events in order: started, each subtask's start, steps, retry, finish, then job.finished", async () => {
    const jobId = uniqueId('sse-fanout');
    const tasks = [
      { id: 'a', question: 'a', agent: 'sim', params: { steps: 2, costUsd: 0.01 } },
      { id: 'b', question: 'b', agent: 'sim', params: { steps: 2, latencyMs: 200 } },
      { id: 'c', question: 'c', agent: 'sim', retry: fastRetry, params: { failAttempts: 1 } },
    ];
    expect((await submit(api.app, { jobId, pattern: 'fanout', tasks })).statusCode).toBe(201);
    const live = await readEvents(`${api.url}/v1/jobs/${jobId}/events`);
    expect(live.status).toBe(200);
    expect(live.type).toContain('text/event-stream');
    expectContiguous(live);
    const types = live.events.map((e) => e.type);
    expect(types[0]).toBe('job.started');
    expect(types.at(-1)).toBe('job.finished');
    expect(live.events.at(-1)!.data).toMatchObject({ status: 'success', metrics: { subtasks: 3 } });
    for (const t of tasks) {
      const mine = live.events.filter((e) => e.data.taskId === t.id).map((e) => e.type);
      const steps = t.params.steps ?? 1;
      expect(mine[0], t.id).toBe('subtask.started');
      expect(mine.at(-1), t.id).toBe('subtask.finished');
      expect(
        mine.filter((x) => x === 'subtask.step'),
        t.id,
      ).toHaveLength(steps);
    }
    expect(live.events.find((e) => e.type === 'subtask.retried')?.data).toMatchObject({ taskId: 'c', attempt: 2 });
    const aSteps = live.events.filter((e) => e.type === 'subtask.step' && e.data.taskId === 'a');
    expect(aSteps.map((e) => (e.data.usage as { costUsd: number }).costUsd)).toEqual([0.01, 0.01]);
    // an ended job replays the same stream and closes
    const again = await readEvents(`${api.url}/v1/jobs/${jobId}/events`);
    expect(again.events).toEqual(live.events);
  });

  it("streams a vote's decision before job.finished, and each voter's finish", async () => {
    const jobId = uniqueId('sse-vote');
    const voters = Array.from({ length: 5 }, (_, i) => ({
      id: `v${i}`,
      question: 'yes or no?',
      agent: 'sim',
      params: i < 3 ? { answer: 'yes' } : { answer: 'no', hang: true },
    }));
    expect((await submit(api.app, { jobId, pattern: 'vote', vote: { strategy: 'majority' }, tasks: voters })).statusCode).toBe(201);
    const r = await readEvents(`${api.url}/v1/jobs/${jobId}/events`);
    expectContiguous(r);
    const types = r.events.map((e) => e.type);
    const decided = types.indexOf('vote.decided');
    expect(decided).toBeGreaterThan(0);
    expect(r.events[decided]!.data).toMatchObject({ winner: 'yes', decidedEarly: true });
    expect(types.at(-1)).toBe('job.finished');
    expect(new Set(r.events.filter((e) => e.type === 'subtask.finished').map((e) => e.data.taskId))).toEqual(
      new Set(voters.map((v) => v.id)),
    );
  });

  it('resumes from Last-Event-ID on a fresh API process after the first went away mid-stream, without gaps or repeats', async () => {
    const jobId = uniqueId('sse-resume');
    const tasks = Array.from({ length: 4 }, (_, i) => ({ id: `s${i}`, question: 'q', agent: 'sim', params: { steps: 3, latencyMs: 300 } }));
    const first = await listeningApp();
    expect((await submit(first.app, { jobId, pattern: 'fanout', tasks })).statusCode).toBe(201);
    // read a few events, then the API process goes away under the open stream
    const head = await readEvents(`${first.url}/v1/jobs/${jobId}/events`, {}, (e) => e.seq >= 4);
    expect(head.events.length).toBe(4);
    await first.app.close();
    const second = await listeningApp();
    try {
      const tail = await readEvents(`${second.url}/v1/jobs/${jobId}/events`, { 'last-event-id': String(head.events.at(-1)!.seq) });
      expectContiguous(tail, 5);
      expect(tail.events.at(-1)!.type).toBe('job.finished');
      const whole = await readEvents(`${second.url}/v1/jobs/${jobId}/events`);
      expect([...head.events, ...tail.events]).toEqual(whole.events);
      // ?after= does the same for clients that cannot set the header
      expect((await readEvents(`${second.url}/v1/jobs/${jobId}/events?after=4`)).events).toEqual(tail.events);
    } finally {
      await second.app.close();
    }
  });

  it('tells a budget top-up, and keeps every tenant to its own streams', async () => {
    const jobId = uniqueId('sse-budget');
    expect(
      (
        await submit(api.app, {
          jobId,
          pattern: 'fanout',
          budget: { costUsd: 1 },
          tasks: [{ id: 'slow', question: 'q', agent: 'sim', params: { steps: 4, latencyMs: 300 } }],
        })
      ).statusCode,
    ).toBe(201);
    const topUp = await api.app.inject({ method: 'POST', url: `/v1/jobs/${jobId}/budget`, payload: { add: { costUsd: 2 } } });
    expect(topUp.statusCode).toBe(200);
    const r = await readEvents(`${api.url}/v1/jobs/${jobId}/events`);
    const changed = r.events.find((e) => e.type === 'budget.changed');
    expect(changed?.data).toMatchObject({ add: { costUsd: 2 }, ledger: { costUsd: { limit: 3 } } });

    const alpha = await fetch(`${api.url}/v1/jobs/${jobId}/events`, { headers: authHeader('alpha') });
    expect(alpha.status).toBe(404);
    expect((await fetch(`${api.url}/v1/jobs/${jobId}/events`)).status).toBe(401);
    expect((await readEvents(`${api.url}/v1/jobs/${uniqueId('nope')}/events`)).status).toBe(404);
    expect((await readEvents(`${api.url}/v1/jobs/${jobId}/events`, { 'last-event-id': 'x' })).status).toBe(400);
  });
});
