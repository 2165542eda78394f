/**
 * Humans and parents in the loop, against the real server and worker: approvals (through the
 * API and a token URL), a rejection, a timeout that moves to the fallback, a question answered
 * (and an answer its schema refuses), a steering message, tenant isolation, used and expired
 * tokens, and a job-level budget wait in the inbox.
 */
import { describe, expect, it } from 'vitest';
import type { InboxItem, JobEvent, JobResult } from '../../schemas';
import { signApprovalToken } from '../../api/inbox/tokens';
import { pollUntil, testRecord, uniqueId, useApp, waitForSubtask } from '../helpers';
import { authHeader } from '../tenants';

const SECRET = 'approval-secret-for-tests-0123456789';
const app = useApp({ DELEGATE_APPROVAL_SECRET: SECRET, PUBLIC_URL: 'http://delegate.test' });

const post = (url: string, payload: object, headers: Record<string, string> = {}) => app.inject({ method: 'POST', url, payload, headers });
const submit = async (spec: object) => {
  const res = await post('/v1/jobs', spec);
  expect(res.statusCode, res.body).toBe(201);
};
const result = async (jobId: string) => {
  const res = await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}/result?waitSeconds=30` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as JobResult;
};
/** The job's events as the stream serves them (from the record). */
const events = async (jobId: string): Promise<JobEvent[]> => (await testRecord()).events.after('default', jobId, 0);

/** The job's one pending inbox item, once its subtask has opened it. */
async function pendingOf(jobId: string, timeoutMs = 20_000): Promise<InboxItem> {
  let item: InboxItem | undefined;
  await pollUntil(
    async () => {
      const res = await app.inject({ method: 'GET', url: `/v1/approvals?jobId=${jobId}` });
      item = (res.json() as { items: InboxItem[] }).items[0];
      return item !== undefined;
    },
    () => `job ${jobId} never opened an inbox item`,
    timeoutMs,
  );
  return item!;
}

describe('approvals', () => {
  it('a task waits for approval before it starts; approved through the API, the decision is in the record and the stream', async () => {
    const jobId = uniqueId('approve');
    await submit({
      jobId,
      pattern: 'fanout',
      labels: { team: 'research' },
      tasks: [{ id: 't', question: 'needs a yes', agent: 'sim', params: { answer: 'ran' }, approval: { beforeStart: true } }],
    });
    const item = await pendingOf(jobId);
    expect(item).toMatchObject({ kind: 'approval', reason: 'before_start', state: 'pending', taskId: 't', labels: { team: 'research' } });
    expect(item.tokenUrl).toMatch(/^http:\/\/delegate\.test\/v1\/approvals\/token\//);
    // filterable by label: another team's listing does not show it
    const other = await app.inject({ method: 'GET', url: `/v1/approvals?jobId=${jobId}&label=team=ops` });
    expect((other.json() as { items: unknown[] }).items).toEqual([]);

    const decided = await post(`/v1/approvals/${item.id}`, { decision: 'approve', note: 'go ahead' });
    expect(decided.statusCode, decided.body).toBe(200);
    expect(decided.json()).toMatchObject({ state: 'approved', decidedBy: 'key:default', note: 'go ahead' });
    const again = await post(`/v1/approvals/${item.id}`, { decision: 'reject' });
    expect(again.statusCode).toBe(409);

    const r = await result(jobId);
    expect(r.results[0]).toMatchObject({ status: 'success', data: 'ran' });
    expect(r.results[0].notes?.join('\n')).toMatch(/approval \(before_start\) .* approved by key:default: go ahead/);
    const types = (await events(jobId)).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['approval.requested', 'approval.decided']));
    expect(types.indexOf('approval.decided')).toBeLessThan(types.indexOf('subtask.step'));
  });

  it('the token URL decides without a key, once; a used or expired token is refused; another tenant gets 404', async () => {
    const jobId = uniqueId('token');
    await submit({
      jobId,
      pattern: 'fanout',
      tasks: [{ id: 't', question: 'needs a yes', agent: 'sim', params: { answer: 'ran' }, approval: { beforeStart: true } }],
    });
    const item = await pendingOf(jobId);
    // another tenant neither sees nor decides it
    const beta = authHeader('beta');
    expect((await app.inject({ method: 'GET', url: `/v1/approvals/${item.id}`, headers: beta })).statusCode).toBe(404);
    expect((await post(`/v1/approvals/${item.id}`, { decision: 'approve' }, beta)).statusCode).toBe(404);
    // an expired token (signed right, past its expiry) is gone: 410
    const expired = signApprovalToken(SECRET, { tenant: 'default', id: item.id, expiresAt: Math.floor(Date.now() / 1000) - 60 });
    const gone = await app.inject({
      method: 'POST',
      url: `/v1/approvals/token/${expired}`,
      payload: { decision: 'approve' },
      headers: { authorization: '' },
    });
    expect(gone.statusCode, gone.body).toBe(410);
    // a forged one (another secret) opens nothing
    const forged = signApprovalToken('not-the-secret-0123456789', { tenant: 'default', id: item.id, expiresAt: 2e9 });
    expect((await app.inject({ method: 'GET', url: `/v1/approvals/token/${forged}`, headers: { authorization: '' } })).statusCode).toBe(
      404,
    );

    const path = new URL(item.tokenUrl!).pathname;
    const shown = await app.inject({ method: 'GET', url: path, headers: { authorization: '' } });
    expect(shown.statusCode, shown.body).toBe(200);
    expect(shown.json()).toMatchObject({ id: item.id, state: 'pending' });
    const used = await app.inject({
      method: 'POST',
      url: path,
      payload: { decision: 'approve', note: 'from email' },
      headers: { authorization: '' },
    });
    expect(used.statusCode, used.body).toBe(200);
    expect(used.json()).toMatchObject({ state: 'approved', decidedBy: 'token' });
    const twice = await app.inject({ method: 'POST', url: path, payload: { decision: 'approve' }, headers: { authorization: '' } });
    expect(twice.statusCode).toBe(409);
    expect((await result(jobId)).results[0].status).toBe('success');
  });

  it('a rejection ends the task as rejected; a costly step waits for approval first', async () => {
    const jobId = uniqueId('reject');
    await submit({
      jobId,
      pattern: 'fanout',
      tasks: [{ id: 't', question: 'two costly steps', agent: 'sim', params: { steps: 2, costUsd: 0.5 }, approval: { aboveCostUsd: 0.1 } }],
    });
    const item = await pendingOf(jobId);
    expect(item).toMatchObject({ reason: 'spend', detail: { step: 1, plannedCostUsd: 0.5, aboveCostUsd: 0.1 } });
    expect((await post(`/v1/approvals/${item.id}`, { decision: 'reject', note: 'too dear' })).statusCode).toBe(200);
    const r = (await result(jobId)).results[0];
    expect(r).toMatchObject({ status: 'partial', failureReason: 'rejected', metrics: { steps: 1 } });
    expect(r.errors.join('\n')).toMatch(/rejected by key:default: too dear/);
  });

  it('a named tool waits for approval before the step that calls it', async () => {
    const jobId = uniqueId('tool');
    await submit({
      jobId,
      pattern: 'fanout',
      tasks: [
        {
          id: 't',
          question: 'fetch',
          agent: 'sim',
          scope: ['fetch'],
          params: { tools: ['fetch'], answer: 'fetched' },
          approval: { tools: ['fetch'] },
        },
      ],
    });
    const item = await pendingOf(jobId);
    expect(item).toMatchObject({ reason: 'tool', detail: { tools: ['fetch'] } });
    expect((await post(`/v1/approvals/${item.id}`, { decision: 'approve' })).statusCode).toBe(200);
    expect((await result(jobId)).results[0]).toMatchObject({ status: 'success', data: 'fetched' });
  });

  it('nobody decides in time: the task moves to its fallback agent', async () => {
    const jobId = uniqueId('timeout');
    await submit({
      jobId,
      pattern: 'fanout',
      tasks: [
        {
          id: 't',
          question: 'q',
          agent: 'sim',
          fallback: ['echo'],
          approval: { beforeStart: true, timeoutSeconds: 2, onTimeout: 'fallback' },
        },
      ],
    });
    const r = (await result(jobId)).results[0];
    expect(r).toMatchObject({ status: 'success', agentId: 'echo' });
    expect(r.agentsTried?.[0]).toMatchObject({ agent: 'sim', reason: 'timeout' });
    const all = await app.inject({ method: 'GET', url: `/v1/approvals?jobId=${jobId}&state=timed_out` });
    expect((all.json() as { items: InboxItem[] }).items[0]).toMatchObject({ state: 'timed_out', decidedBy: 'timeout' });
  });

  it('a job-level policy holds every task; skip on timeout ends them partial', async () => {
    const jobId = uniqueId('jobpolicy');
    await submit({
      jobId,
      pattern: 'fanout',
      approval: { beforeStart: true, timeoutSeconds: 1, onTimeout: 'skip' },
      tasks: [
        { id: 'a', question: 'q', agent: 'sim' },
        { id: 'b', question: 'q', agent: 'sim' },
      ],
    });
    const r = await result(jobId);
    expect(r.results.map((x) => [x.status, x.failureReason])).toEqual([
      ['partial', 'skipped'],
      ['partial', 'skipped'],
    ]);
  });
});

describe('questions from a subagent', () => {
  it('a step asks; an answer its schema refuses is 422 with the field path; a valid one reaches the next step', async () => {
    const jobId = uniqueId('ask');
    const answerSchema = { type: 'object', properties: { year: { type: 'integer' } }, required: ['year'] };
    await submit({
      jobId,
      pattern: 'fanout',
      tasks: [
        { id: 't', question: 'when?', agent: 'sim', params: { steps: 2, echoHuman: true, ask: { question: 'Which year?', answerSchema } } },
      ],
    });
    const item = await pendingOf(jobId);
    expect(item).toMatchObject({ kind: 'question', detail: { question: 'Which year?', answerSchema } });
    const bad = await post(`/v1/approvals/${item.id}`, { answer: { year: 'soon' } });
    expect(bad.statusCode, bad.body).toBe(422);
    expect(bad.json().errors).toEqual([{ path: 'body.answer.year', message: 'must be integer' }]);
    const none = await post(`/v1/approvals/${item.id}`, { decision: 'approve' });
    expect(none.statusCode).toBe(400);
    const ok = await post(`/v1/approvals/${item.id}`, { answer: { year: 2024 } });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ state: 'answered', answer: { year: 2024 } });
    const r = (await result(jobId)).results[0];
    expect(r).toMatchObject({ status: 'success', data: { answers: [{ year: 2024 }], messages: [] } });
  });
});

describe('steering', () => {
  it('a message reaches the next step, and is in the stream and the notes', async () => {
    const jobId = uniqueId('steer');
    await submit({
      jobId,
      pattern: 'fanout',
      tasks: [{ id: 't', question: 'slow', agent: 'sim', params: { steps: 3, latencyMs: 1500, echoHuman: true } }],
    });
    const unknown = await post(`/v1/jobs/${jobId}/subtasks/nope/messages`, { text: 'x' });
    expect(unknown.statusCode).toBe(404);
    // a message goes to a running subtask (one not started yet is a 409): wait until its first step runs
    await waitForSubtask(jobId, 't', 'running');
    const sent = await post(`/v1/jobs/${jobId}/subtasks/t/messages`, { text: 'focus on 2024', from: 'parent' });
    expect(sent.statusCode, sent.body).toBe(202);
    const r = (await result(jobId)).results[0];
    expect(r.data).toMatchObject({ messages: ['focus on 2024'] });
    expect(r.notes?.join('\n')).toMatch(/message from parent received by step \d: focus on 2024/);
    expect((await events(jobId)).find((e) => e.type === 'subtask.message')?.data).toMatchObject({
      taskId: 't',
      messages: [{ text: 'focus on 2024', from: 'parent' }],
    });
    expect((await post(`/v1/jobs/${jobId}/subtasks/t/messages`, { text: 'late' })).statusCode).toBe(409);
  });
});

describe('job budget wait', () => {
  it('a job whose budget runs out waits for a top-up: budget.reached in the stream and the inbox', async () => {
    const jobId = uniqueId('budgetwait');
    await submit({
      jobId,
      pattern: 'fanout',
      budget: { costUsd: 0.02 },
      budgetWaitSeconds: 60,
      tasks: [{ id: 'w', question: 'four steps', agent: 'sim', params: { steps: 4, costUsd: 0.01, answer: 'done' } }],
    });
    const item = await pendingOf(jobId);
    expect(item).toMatchObject({ kind: 'budget', reason: 'budget', detail: { spent: ['costUsd'] } });
    expect((await post(`/v1/approvals/${item.id}`, { decision: 'approve' })).statusCode).toBe(409);
    expect((await post(`/v1/jobs/${jobId}/budget`, { add: { costUsd: 0.03 } })).statusCode).toBe(200);
    expect((await result(jobId)).results[0]).toMatchObject({ status: 'success', data: 'done' });
    expect((await events(jobId)).map((e) => e.type)).toContain('budget.reached');
    const settled = await app.inject({ method: 'GET', url: `/v1/approvals/${item.id}` });
    expect(settled.json()).toMatchObject({ state: 'approved', decidedBy: 'top-up' });
  });
});
