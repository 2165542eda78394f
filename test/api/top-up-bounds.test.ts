/**
 * Top-ups from the attacker's side (security audit #8→#9): a caller who keeps topping up must not
 * push a limit past what one budget may set (cost past 2^53 micro-dollars loses exactness), and a
 * top-up of an axis the job does not limit must say so rather than answer 200 with nothing changed.
 */
import { describe, expect, it } from 'vitest';
import { AXES } from '../../core/budget-axes';
import type { JobView } from '../../schemas';
import { budgetUpdate } from '../../contracts/messages';
import { testClient, uniqueId, useApp, waitForSubtask } from '../helpers';

const app = useApp();

const post = (url: string, payload: object = {}) => app.inject({ method: 'POST', url, payload });
const ledgerOf = async (jobId: string) => ((await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}` })).json() as JobView).ledger;

/** A job whose one subtask runs until cancelled (its step never answers), under `budget`. */
async function hangingJob(prefix: string, budget: object, taskBudget?: object): Promise<string> {
  const jobId = uniqueId(prefix);
  const res = await post('/v1/jobs', {
    jobId,
    pattern: 'fanout',
    budget,
    tasks: [{ id: 'h', question: 'q', agent: 'sim', params: { hang: true }, ...(taskBudget ? { budget: taskBudget } : {}) }],
  });
  expect(res.statusCode).toBe(201);
  await waitForSubtask(jobId, 'h', 'running');
  return jobId;
}

describe('cumulative top-ups are bounded', () => {
  it('twelve top-ups of $1e9 are each refused with 422 at body.add.costUsd once the limit would pass $1e9; nothing changes', async () => {
    const jobId = await hangingJob('topmax', { costUsd: 0.02 });
    const max = AXES.costUsd.max;
    // up to the bound exactly is fine
    const fill = await post(`/v1/jobs/${jobId}/budget`, { add: { costUsd: max - 0.02 } });
    expect(fill.statusCode).toBe(200);
    expect(fill.json().ledger.costUsd.limit).toBe(max);

    const answers = [];
    for (let i = 0; i < 12; i++) answers.push(await post(`/v1/jobs/${jobId}/budget`, { add: { costUsd: 1e9 } }));
    expect(answers.map((r) => r.statusCode)).toEqual(Array(12).fill(422));
    expect(answers[0].headers['content-type']).toMatch(/application\/problem\+json/);
    expect(answers[0].json()).toMatchObject({
      status: 422,
      errors: [{ path: 'body.add.costUsd', message: expect.stringMatching(/past 1000000000/) }],
    });
    // one micro-dollar over is refused as well
    expect((await post(`/v1/jobs/${jobId}/budget`, { add: { costUsd: 0.000001 } })).statusCode).toBe(422);
    const ledger = await ledgerOf(jobId);
    expect(ledger?.costUsd.limit).toBe(max);
    expect(Number.isSafeInteger(Math.round(ledger!.costUsd.limit! * 1e6))).toBe(true);

    // straight to the workflow, past the API: the update's validator refuses it too
    const handle = (await testClient()).workflow.getHandle(`job/default/${jobId}`);
    await expect(handle.executeUpdate(budgetUpdate, { args: [{ add: { costUsd: 1e9 } }] })).rejects.toThrow();
    expect((await ledgerOf(jobId))?.costUsd.limit).toBe(max);
    await post(`/v1/jobs/${jobId}/cancel`);
  });

  it('a top-up of an axis the job has no limit on answers 409 naming the axis, and changes nothing', async () => {
    const jobId = await hangingJob('topnolimit', { costUsd: 0.02 });
    const before = await ledgerOf(jobId);
    expect(before?.tokens.limit).toBeNull();

    const res = await post(`/v1/jobs/${jobId}/budget`, { add: { tokens: 5000 } });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ status: 409, detail: expect.stringMatching(/no limit on tokens/) });
    // a mix is refused whole: the cost part is not booked either
    const mixed = await post(`/v1/jobs/${jobId}/budget`, { add: { costUsd: 0.5, tokens: 5000 } });
    expect(mixed.statusCode).toBe(409);
    // latency's `spent` is the clock; the axes a top-up could touch are as they were
    const after = await ledgerOf(jobId);
    expect([after?.costUsd, after?.tokens, after?.toolCalls]).toEqual([before?.costUsd, before?.tokens, before?.toolCalls]);
    expect(after?.latencySeconds.limit).toBeNull();
    await post(`/v1/jobs/${jobId}/cancel`);
  });

  it("a subtask's limit is bounded too when its job has none on that axis", async () => {
    // the job limits nothing on cost, so the job grants a subtask top-up whole
    const jobId = await hangingJob('subtopmax', {}, { costUsd: 0.01 });
    const first = await post(`/v1/jobs/${jobId}/subtasks/h/budget`, { add: { costUsd: AXES.costUsd.max - 0.01 } });
    expect(first.statusCode).toBe(200);
    const answers: number[] = [];
    for (let i = 0; i < 12; i++) answers.push((await post(`/v1/jobs/${jobId}/subtasks/h/budget`, { add: { costUsd: 1e9 } })).statusCode);
    expect(answers).toEqual(Array(12).fill(422));
    const again = await post(`/v1/jobs/${jobId}/subtasks/h/budget`, { add: { costUsd: 1 } });
    expect(again.json()).toMatchObject({ errors: [{ path: 'body.add.costUsd' }] });
    await post(`/v1/jobs/${jobId}/cancel`);
  });
});
