import { describe, expect, it } from 'vitest';
import { ResearchSubtaskOutputSchema } from '../../schemas/research-contract';
import { jobsStartedWithId, uniqueId, useApp } from '../helpers';

const app = useApp();

const seed = [
  {
    url: 'https://www.postgresql.org/docs/current/parallel-query.html',
    title: 'Parallel Query',
    snippet: 'PostgreSQL can use several CPUs for one query.',
    source: 'web',
  },
];
const found = [
  {
    id: 'e1',
    source: 'web',
    url: 'https://docs.citusdata.com/columnar',
    title: 'Columnar storage',
    snippet: 'Citus columnar tables compress well and scan fast.',
    score: 0.8,
  },
  {
    id: 'e2',
    source: 'web',
    url: 'https://github.com/duckdb/pg_duckdb',
    title: 'pg_duckdb',
    snippet: 'DuckDB inside PostgreSQL.',
    score: 0.7,
  },
  // the seed's page again, spelled with a fragment: a duplicate of what the parent already holds
  {
    id: 'e3',
    source: 'web',
    url: 'https://www.postgresql.org/docs/current/parallel-query.html#x',
    title: 'Parallel Query',
    snippet: 'again',
    score: 0.5,
  },
];
const SIX = 'One. Two. Three. Four. Five. Six.';

/** A contract input with the sim agent (Delegate's extension) and the given params. */
function input(id: string, params: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    id,
    parent_id: 'plan_1',
    question: 'Which PostgreSQL extensions speed up analytics?',
    rationale: 'the plan compares engines',
    scope: ['web'],
    budget: { latency_seconds: 60, cost_usd: 1, tool_calls: 20 },
    context_seed: seed,
    stop_conditions: [],
    agent: 'sim',
    params,
    ...extra,
  };
}

async function post(body: unknown, headers: Record<string, string> = {}) {
  return app.inject({ method: 'POST', url: '/v1/subtasks?waitSeconds=30', payload: body as object, headers });
}

describe('the research-subtask contract over POST /v1/subtasks', () => {
  it('round trip: every output field; a stop condition ends a 3-step subtask after step 1; the seed is deduplicated and counted', async () => {
    const res = await post(
      input(
        'sub_1',
        { steps: 3, evidence: found, costUsd: 0.01, tools: ['search'], followUps: ['x'] },
        {
          scope: ['web', 'search'],
          stop_conditions: ['answer matches schema', 'evidence >= 2'],
          output_schema: { type: 'string' },
        },
      ),
    );
    expect(res.statusCode).toBe(200);
    const out = ResearchSubtaskOutputSchema.parse(res.json());
    expect(out).toMatchObject({
      id: 'sub_1',
      status: 'success',
      failure_reason: null,
      follow_ups: [],
      // e3 is the seed's page: citing it cites the seed
      citations: ['https://docs.citusdata.com/columnar', 'https://github.com/duckdb/pg_duckdb', seed[0].url],
      metrics: { cost_usd: 0.01, tool_calls: 0, channels_hit: ['sim', 'search'] },
      delegate: { parent_id: 'plan_1', agent_id: 'sim', stopped_by: 'evidence >= 2', dropped: { citations: 0, seed_duplicates: 1 } },
    });
    // slim items, the seed's page not among them, fetched_at filled by the host
    expect(out.evidence.map((e) => e.url)).toEqual(['https://docs.citusdata.com/columnar', 'https://github.com/duckdb/pg_duckdb']);
    expect(out.evidence[0]).toEqual({
      url: 'https://docs.citusdata.com/columnar',
      title: 'Columnar storage',
      snippet: 'Citus columnar tables compress well and scan fast.',
      source: 'web',
      fetched_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      score: 0.8,
    });
    expect(out.metrics.latency_ms).toBeGreaterThan(0);
    const jobId = out.delegate.job_id!;
    const job = (await app.inject({ url: `/v1/jobs/${jobId}/result` })).json();
    expect(job.results[0]).toMatchObject({ metrics: { steps: 1 }, stoppedBy: 'evidence >= 2', status: 'success' });
    // parent_id is kept as a label: the job list finds the subtask by it
    const listed = (await app.inject({ url: '/v1/jobs?label=parent_id=plan_1&label=contract=research-subtask&pageSize=100' })).json();
    expect(listed.jobs.map((j: { jobId: string }) => j.jobId)).toContain(jobId);
  });

  it('a budget gone before the first step is partial with the reason, not failure', async () => {
    const res = await post(input('sub_2', {}, { budget: { latency_seconds: 60, cost_usd: 0, tool_calls: 5 } }));
    expect(res.statusCode).toBe(200);
    const out = res.json();
    expect(out).toMatchObject({
      id: 'sub_2',
      status: 'partial',
      failure_reason: 'budget_exhausted',
      evidence: [],
      metrics: { cost_usd: 0 },
    });
    expect(out.delegate.notes).toContain('costUsd budget spent before the first step');
  });

  it('"budget exhausted" as a stop condition halts at once (no top-up wait) and says so', async () => {
    const res = await post(
      input(
        'sub_3',
        { steps: 5, costUsd: 0.4 },
        { stop_conditions: ['budget exhausted'], budget: { latency_seconds: 60, cost_usd: 0.8, tool_calls: 5 } },
      ),
    );
    const out = res.json();
    expect(out).toMatchObject({
      status: 'partial',
      failure_reason: 'budget_exhausted',
      metrics: { cost_usd: 0.8 },
      delegate: { stopped_by: 'budget exhausted' },
    });
  });

  it('the seed reaches the agent as evidence it already holds, and is never returned as new', async () => {
    const res = await post(
      input('sub_4', { echoSeed: true, evidence: [found[2]], summary: 'It read the seed. It found nothing new. The seed stands.' }),
    );
    const out = res.json();
    expect(out.status).toBe('success');
    expect(out.delegate.data).toEqual([{ id: 'seed_1', url: seed[0].url }]);
    expect(out.evidence).toEqual([]);
    expect(out.delegate.dropped.seed_duplicates).toBe(1);
  });

  it('a summary of more than six sentences is re-prompted once, then trimmed with a note', async () => {
    const long = `${SIX} Seven. Eight.`;
    const out = (await post(input('sub_5', { summary: long }))).json();
    expect(out.summary).toBe(SIX);
    expect(out.delegate.notes).toEqual(
      expect.arrayContaining(['summary re-prompted once: it had 8 sentences', 'summary trimmed from 8 to 6 sentences']),
    );
    const job = (await app.inject({ url: `/v1/jobs/${out.delegate.job_id}/result` })).json();
    expect(job.results[0].metrics.steps).toBe(2);
  });

  it('a free-text rubric goes to the judge agent, whose verdict stops the subtask and whose spend is booked to it', async () => {
    const out = (await post(input('sub_6', { steps: 3 }, { stop_conditions: ['the answer says "step 1"'] }))).json();
    expect(out).toMatchObject({ status: 'success', delegate: { stopped_by: 'the answer says "step 1"' } });
    expect(out.delegate.notes.join('\n')).toContain('judge judge: "the answer says "step 1"" holds (the answer mentions step 1)');
    // sim spends nothing: every token and cent is the judge's
    expect(out.delegate.tokens).toBeGreaterThan(0);
    expect(out.metrics.cost_usd).toBeGreaterThan(0);
    const job = (await app.inject({ url: `/v1/jobs/${out.delegate.job_id}/result` })).json();
    expect(job.results[0].metrics.steps).toBe(1);
  });

  it('a rubric the judge does not grant lets the subtask run to its end', async () => {
    const out = (await post(input('sub_7', { steps: 2, summary: SIX }, { stop_conditions: ['mentions "Temporal"'] }))).json();
    expect(out).toMatchObject({ status: 'success', summary: SIX, delegate: { stopped_by: null } });
  });

  it('the contract names no agent: routing picks one from scope and question', async () => {
    const { agent: _a, params: _p, ...unnamed } = input('sub_10', {}, { scope: ['research'], question: 'Research PostgreSQL history' });
    const out = (await post(unnamed)).json();
    expect(out).toMatchObject({ id: 'sub_10', status: 'success', delegate: { agent_id: 'researcher' } });
    expect(out.metrics.channels_hit).toEqual(['scripted']);
  });

  it('refuses unknown keys and malformed conditions with their paths, and starts nothing', async () => {
    const jobId = uniqueId('contract-bad');
    const res = await post({ ...input('sub_8', {}), stop_conditions: ['confidence >= 2'], surprise: 1 }, { 'idempotency-key': jobId });
    expect(res.statusCode).toBe(400);
    const paths = res.json().errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['body']));
    const bad = await post({ ...input('sub_8', {}), stop_conditions: ['confidence >= 2'] }, { 'idempotency-key': jobId });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toEqual([{ path: 'body.stop_conditions[0]', message: 'confidence is between 0 and 1, got 2' }]);
    expect(await jobsStartedWithId(jobId)).toBe(0);
  });

  it('answers 202 with where to wait, and GET /v1/subtasks/:jobId gives the output when done', async () => {
    const res = await app.inject({ method: 'POST', url: '/v1/subtasks', payload: input('sub_9', { latencyMs: 500, summary: SIX }) });
    expect(res.statusCode).toBe(202);
    const { job_id: jobId, links } = res.json();
    expect(res.json()).toMatchObject({ id: 'sub_9', status: 'running' });
    expect(links.self).toMatch(new RegExp(`/v1/subtasks/${jobId}$`));
    const done = await app.inject({ url: `/v1/subtasks/${jobId}?waitSeconds=30` });
    expect(done.statusCode).toBe(200);
    expect(done.json()).toMatchObject({ id: 'sub_9', status: 'success', summary: SIX });
  });
});

describe('research-contract tasks inside a job', () => {
  it('a fan-out of contract subtasks is one call: each result carries its contract output; the shared parent_id labels the job', async () => {
    const jobId = uniqueId('contract-fanout');
    const task = (id: string, params: Record<string, unknown>) => ({ contract: 'research-subtask', ...input(id, params) });
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: {
        jobId,
        pattern: 'fanout',
        tasks: [task('sub_a', { summary: SIX }), task('sub_b', { steps: 3 }), { id: 'plain', question: 'q', agent: 'sim' }],
      },
    });
    expect(res.statusCode).toBe(201);
    const result = (await app.inject({ url: `/v1/jobs/${jobId}/result?waitSeconds=30` })).json();
    expect(result.results.map((r: { research?: { id: string } }) => r.research?.id)).toEqual(['sub_a', 'sub_b', undefined]);
    expect(result.results[0].research).toMatchObject({ status: 'success', summary: SIX, delegate: { parent_id: 'plan_1', job_id: jobId } });
    const view = (await app.inject({ url: `/v1/jobs?label=parent_id=plan_1&pageSize=100` })).json();
    expect(view.jobs.map((j: { jobId: string }) => j.jobId)).toContain(jobId);
  });

  it('a contract task with a bad field is refused at its path inside the job', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: {
        pattern: 'fanout',
        tasks: [{ contract: 'research-subtask', ...input('sub_x', {}), budget: { latency_seconds: 60, cost_usd: 1 } }],
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'body.tasks[0].budget.tool_calls' })]));
  });
});
