/**
 * A research-contract subtask that names no agent and whose scope and question match none: a
 * 422 at `body.agent` that says how to name one, or, with DELEGATE_RESEARCH_DEFAULT_AGENT, a run
 * on that agent. A subtask routing does match keeps its routed agent.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, uniqueId } from '../helpers';

const unmatched = (id: string) => ({
  id,
  question: 'zzqv wibble florp',
  scope: ['nowhere-channel'],
  budget: { latency_seconds: 60, cost_usd: 1, tool_calls: 5 },
  context_seed: [{ url: 'https://a.example/x', title: 'A', snippet: 'already known' }],
});
const post = (app: FastifyInstance, body: unknown) =>
  app.inject({ method: 'POST', url: '/v1/subtasks?waitSeconds=30', payload: body as object });

let plain: FastifyInstance;
let withDefault: FastifyInstance;
let misconfigured: FastifyInstance;
beforeAll(async () => {
  plain = await testApp();
  withDefault = await testApp({ DELEGATE_RESEARCH_DEFAULT_AGENT: 'echo' });
  misconfigured = await testApp({ DELEGATE_RESEARCH_DEFAULT_AGENT: 'no-such-agent' });
});
afterAll(async () => {
  await Promise.all([plain?.close(), withDefault?.close(), misconfigured?.close()]);
});

describe('a contract subtask no agent matches', () => {
  it('without a default: 422 at body.agent saying how to configure one', async () => {
    const res = await post(plain, unmatched(uniqueId('sub')));
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().errors).toEqual([{ path: 'body.agent', message: expect.stringContaining('DELEGATE_RESEARCH_DEFAULT_AGENT') }]);
  });

  it('with DELEGATE_RESEARCH_DEFAULT_AGENT: runs on that agent (a seed without source taken as is)', async () => {
    const res = await post(withDefault, unmatched(uniqueId('sub')));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'success', delegate: { agent_id: 'echo' } });
  });

  it('a match still wins over the default', async () => {
    const res = await post(withDefault, { ...unmatched(uniqueId('sub')), scope: ['research'], question: 'Research PostgreSQL history' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ delegate: { agent_id: 'researcher' } });
  });

  it("a default that names no agent is the operator's mistake, and says so", async () => {
    const res = await post(misconfigured, unmatched(uniqueId('sub')));
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().errors).toEqual([
      { path: 'body.agent', message: expect.stringMatching(/^DELEGATE_RESEARCH_DEFAULT_AGENT: unknown agent "no-such-agent"/) },
    ]);
  });
});
