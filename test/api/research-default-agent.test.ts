/**
 * A research-contract subtask that names no agent and whose scope and question match none: a
 * run on an agent of capability "research", a 422 saying what to configure when there is none,
 * or, with DELEGATE_RESEARCH_DEFAULT_AGENT, a run on that agent. With the default set, every such subtask runs there before any route; without
 * it, a question about "search" is routed among the agents that can take it, never to the scout.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobResult } from '../../schemas';
import { builtinAgents, createAgentRegistry } from '../../activities';
import { testApp, uniqueId } from '../helpers';

const unmatched = (id: string) => ({
  id,
  question: 'zzqv wibble florp',
  scope: ['nowhere-channel'],
  budget: { latency_seconds: 60, cost_usd: 1, tool_calls: 5 },
  context_seed: [{ url: 'https://a.example/x', title: 'A', snippet: 'already known' }],
});
/** The contract's input as a planner writes it (no agent, no params), asking about search. */
const aboutSearch = (id: string) => ({
  id,
  parent_id: 'plan_1',
  question: 'Which vector databases support hybrid search?',
  rationale: 'the plan compares retrieval stacks',
  scope: ['web'],
  budget: { latency_seconds: 60, cost_usd: 1, tool_calls: 5 },
  context_seed: [],
  stop_conditions: [],
});
const post = (app: FastifyInstance, body: unknown) =>
  app.inject({ method: 'POST', url: '/v1/subtasks?waitSeconds=30', payload: body as object });
/** The routing of a finished contract subtask's one task, from its job's result. */
async function routingOf(app: FastifyInstance, jobId: string) {
  const res = await app.inject({ url: `/v1/jobs/${jobId}/result?waitSeconds=30` });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as JobResult).results[0]!.routing;
}

let plain: FastifyInstance;
let withDefault: FastifyInstance;
let misconfigured: FastifyInstance;
let noResearchAgent: FastifyInstance;
beforeAll(async () => {
  plain = await testApp();
  withDefault = await testApp({ DELEGATE_RESEARCH_DEFAULT_AGENT: 'echo' });
  misconfigured = await testApp({ DELEGATE_RESEARCH_DEFAULT_AGENT: 'no-such-agent' });
  // the builtins only: none has the capability "research"
  noResearchAgent = await testApp({}, 'default', undefined, createAgentRegistry(builtinAgents));
});
afterAll(async () => {
  await Promise.all([plain?.close(), withDefault?.close(), misconfigured?.close(), noResearchAgent?.close()]);
});

describe('a contract subtask no agent matches', () => {
  it('without a default: an agent of capability "research" runs it', async () => {
    const res = await post(plain, unmatched(uniqueId('sub')));
    expect(res.statusCode, res.body).toBeLessThan(300);
    expect(['researcher', 'rogue-llm']).toContain(res.json().delegate.agent_id);
  });

  it('without a default and with no agent of capability "research": 422 saying what to configure', async () => {
    const res = await post(noResearchAgent, unmatched(uniqueId('sub')));
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().detail).toBe(
      'no agent of this deployment can take the question: the operator sets DELEGATE_RESEARCH_DEFAULT_AGENT, or gives an agent the capability "research" in the agents file',
    );
    expect(res.json().errors).toEqual([{ path: 'body.agent', message: expect.stringContaining('name an `agent`') }]);
  });

  it('with DELEGATE_RESEARCH_DEFAULT_AGENT: runs on that agent (a seed without source taken as is)', async () => {
    const res = await post(withDefault, unmatched(uniqueId('sub')));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'success', delegate: { agent_id: 'echo' } });
  });

  it('the default comes before any route, and the result says so', async () => {
    const res = await post(withDefault, { ...unmatched(uniqueId('sub')), scope: ['research'], question: 'Research PostgreSQL history' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'success', delegate: { agent_id: 'echo' } });
    expect(await routingOf(withDefault, res.json().delegate.job_id)).toEqual({
      agent: 'echo',
      reason: 'research default (DELEGATE_RESEARCH_DEFAULT_AGENT)',
    });
  });

  it("a default that names no agent is the operator's mistake, and says so", async () => {
    const res = await post(misconfigured, unmatched(uniqueId('sub')));
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().errors).toEqual([
      { path: 'body.agent', message: expect.stringMatching(/^DELEGATE_RESEARCH_DEFAULT_AGENT: unknown agent "no-such-agent"/) },
    ]);
  });
});

describe('a contract subtask asking about search (a word of the code scout)', () => {
  it('without a default: routed by meaning among the agents that can take it, not to the scout (which needs params.paths)', async () => {
    const res = await post(plain, aboutSearch(uniqueId('sub')));
    expect(res.statusCode, res.body).toBe(200);
    const out = res.json();
    expect(out.delegate.agent_id).not.toBe('scout');
    expect(out.failure_reason).toBeNull();
    const routing = await routingOf(plain, out.delegate.job_id);
    expect(routing).toEqual({ agent: out.delegate.agent_id, reason: expect.stringMatching(/^semantic: bm25 \d\.\d\d ≥ 0\.30/) });
    expect(routing!.reason).not.toBe('named');
  });

  it('with DELEGATE_RESEARCH_DEFAULT_AGENT: runs on the default, whatever the words', async () => {
    const res = await post(withDefault, aboutSearch(uniqueId('sub')));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'success', delegate: { agent_id: 'echo' } });
    expect((await routingOf(withDefault, res.json().delegate.job_id))?.reason).toBe('research default (DELEGATE_RESEARCH_DEFAULT_AGENT)');
  });
});
