/**
 * The judge's scores in a replay's comparison, through the API against the fake provider: with
 * DELEGATE_JUDGE_AGENT set, the first comparison of a finished replay starts a grading job
 * (`<replayId>-grade`, labelled gradeOf) that scores both answers of every subtask, and the
 * comparison carries the scores on each side and their means. The fake's cheap model answers
 * every question wrong; the judge here scores an answer 1 when it says "ok:", else 0, so the
 * comparison must put 1 on the source and 0 on the replay whichever answer the judge read first.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentDefinition } from '../../activities/agents/types';
import { echoAgent } from '../../activities/agents/echo';
import { replayFirst } from '../../api/jobs/replay-grade';
import type { JobResult } from '../../schemas';
import type { JobComparison } from '../../schemas/replay';
import { pricedModel, startFakeProviderStack, type FakeProviderStack } from '../fake-provider-stack';
import { finalResult, pollUntil, uniqueId } from '../helpers';

/** Scores each of the two answers it is shown: 1 for a right one ("ok: …"), 0 for any other. */
const grader: AgentDefinition = {
  ...echoAgent,
  manifest: { ...echoAgent.manifest, id: 'grader', capabilities: ['grade'], limits: { timeoutSeconds: 10, maxSteps: 2 } },
  params: z.strictObject({}),
  async step({ task }) {
    const [, a = '', b = ''] = /Answer A:\n([\s\S]*?)\n\nAnswer B:\n([\s\S]*)$/.exec(task.question) ?? [];
    const score = (answer: string) => (answer.includes('ok:') ? 1 : 0);
    const data = { a: score(a), b: score(b), why: 'a right answer says ok' };
    return { done: true, summary: JSON.stringify(data), data, confidence: 1, channelsHit: ['grader'] };
  },
};

let stack: FakeProviderStack;
let app: FastifyInstance;

beforeAll(async () => {
  stack = await startFakeProviderStack(
    { latencyMs: 20, wrongRate: { 'cheap-model': 1 } },
    (url) => [pricedModel(url, 'pricey', 40), pricedModel(url, 'cheap', 10, { model: 'cheap-model' }), grader],
    { DELEGATE_JUDGE_AGENT: 'grader' },
  );
  ({ app } = stack);
});

afterAll(() => stack?.stop());

// the judge reads the source's answer first for t1 and t2, the replay's first for g1
const tasks = ['t1', 't2', 'g1'].map((id, i) => ({ id, question: `graded question ${i}`, agent: 'pricey' }));

describe('a replay graded by the judge', () => {
  it('scores both sides of every subtask in a grading job, and the comparison carries the scores', async () => {
    expect(tasks.map((t) => replayFirst(t.id))).toEqual([false, false, true]);
    const source = uniqueId('grade-src');
    const res = await app.inject({ method: 'POST', url: '/v1/jobs', payload: { jobId: source, pattern: 'fanout', tasks } });
    expect(res.statusCode, res.body).toBe(201);
    expect((await finalResult(app, source)).statusCode).toBe(200);
    const replay = await app.inject({ method: 'POST', url: `/v1/jobs/${source}/replay`, payload: { agent: 'cheap' } });
    expect(replay.statusCode, replay.body).toBe(202);
    const replayId = (replay.json() as { jobId: string }).jobId;

    let c: JobComparison | undefined;
    while (!c) {
      const got = await app.inject({ method: 'GET', url: `/v1/jobs/${replayId}/comparison?waitSeconds=20` });
      if (got.statusCode === 200) c = got.json() as JobComparison;
      else expect(got.statusCode, got.body).toBe(202);
    }
    expect(c.gradedBy).toEqual({ jobId: `${replayId}-grade`, judge: 'grader', graded: 3 });
    for (const s of c.subtasks) {
      expect(s.outputsEqual, s.taskId).toBe(false);
      expect([s.taskId, s.source?.score, s.replay?.score]).toEqual([s.taskId, 1, 0]);
    }
    expect(c.totals.source.meanScore).toBe(1);
    expect(c.totals.replay.meanScore).toBe(0);

    // the grading is a job like any other, labelled with the replay it grades
    const grading = (await finalResult(app, `${replayId}-grade`)).json() as JobResult;
    expect(grading.results.map((r) => [r.id, r.agentId, r.status])).toEqual([
      ['t1', 'grader', 'success'],
      ['t2', 'grader', 'success'],
      ['g1', 'grader', 'success'],
    ]);
    await pollUntil(async () => (await app.record.get('default', `${replayId}-grade`)) !== undefined, 'grading never archived', 30_000);
    expect((await app.record.get('default', `${replayId}-grade`))!.labels).toEqual({ gradeOf: replayId });
  });
});
