import { WorkflowFailedError } from '@temporalio/client';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { appForTest, finalResult, jobsStartedWithId, pollUntil, testClient, testConfig, testRecord, uniqueId, useApp } from '../helpers';
import { TEST_TENANTS } from '../tenants';
import { buildApp } from '../../api/app';
import { loadRegistry } from '../../activities';
import { loadTenants } from '../../config/tenants';
import { delegationJob } from '../../workflows/delegation-job';
import { jobInputProblems } from '../../schemas/job-input';

const alpha = useApp({}, 'alpha');
const beta = useApp({}, 'beta');
const anon = useApp({}, null);

/** A job that runs until the test cancels it (its step never answers). */
const slowJob = (jobId: string) => ({
  jobId,
  pattern: 'fanout',
  tasks: [{ id: 's', question: 'slow', agent: 'sim', params: { hang: true } }],
});

describe('bearer keys decide the tenant', () => {
  it('answers 401 with WWW-Authenticate without a key or with a wrong one; public routes need none', async () => {
    for (const headers of [
      {},
      { authorization: 'Bearer not-a-key-0123456789' },
      { authorization: 'Basic YTpi' },
      { authorization: `Bearer ${TEST_TENANTS.alpha.key}x` },
    ]) {
      for (const [method, url] of [
        ['GET', '/v1/jobs'],
        ['GET', '/v1/agents'],
        ['POST', '/v1/jobs'],
        ['GET', '/v1/jobs/x'],
        ['POST', '/v1/jobs/x/cancel'],
      ] as const) {
        const res = await anon.inject({ method, url, headers, ...(method === 'POST' ? { payload: {} } : {}) });
        expect(res.statusCode, `${method} ${url} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="delegate"/);
        expect(res.headers['content-type']).toContain('application/problem+json');
      }
    }
    for (const url of ['/healthz', '/readyz', '/openapi.json', '/docs']) {
      const res = await anon.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBeLessThan(400);
    }
    expect((await anon.inject({ method: 'GET', url: '/readyz' })).json()).toMatchObject({ ok: true, auth: 'on' });
  });

  it('ignores a tenant header: the key decides', async () => {
    const jobId = uniqueId('hdr');
    const res = await alpha.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: { 'x-tenant': 'beta' },
      payload: { jobId, pattern: 'fanout', tasks: [{ id: 'a', question: 'q', agent: 'echo' }] },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().workflowId).toBe(`job/alpha/${jobId}`);
    expect(await jobsStartedWithId(jobId, 'beta')).toBe(0);
  });

  it("gives another tenant's job exactly the 404 of a job that does not exist, on every route", async () => {
    const jobId = uniqueId('mine');
    const ghost = uniqueId('ghost');
    expect((await alpha.inject({ method: 'POST', url: '/v1/jobs', payload: slowJob(jobId) })).statusCode).toBe(201);
    const routes = (id: string) =>
      [
        ['GET', `/v1/jobs/${id}`, undefined],
        ['GET', `/v1/jobs/${id}/result?waitSeconds=0`, undefined],
        ['POST', `/v1/jobs/${id}/budget`, { add: { costUsd: 1_000_000 } }],
        ['POST', `/v1/jobs/${id}/subtasks/s/budget`, { add: { costUsd: 1_000_000 } }],
        ['POST', `/v1/jobs/${id}/stop`, {}],
        ['POST', `/v1/jobs/${id}/cancel`, {}],
      ] as const;
    const ghosts: { body: string }[] = [];
    for (const [method, url, payload] of routes(ghost)) ghosts.push(await beta.inject({ method, url, ...(payload ? { payload } : {}) }));
    const theirs = [];
    for (const [method, url, payload] of routes(jobId)) theirs.push(await beta.inject({ method, url, ...(payload ? { payload } : {}) }));
    theirs.forEach((res, i) => {
      expect(res.statusCode, routes(jobId)[i]![1]).toBe(404);
      // the same body as for a job that does not exist, with the id swapped
      expect(res.body.replaceAll(jobId, 'ID')).toBe(ghosts[i]!.body.replaceAll(ghost, 'ID'));
    });
    // nothing changed for the owner: still running, budget untouched
    const view = await alpha.inject({ method: 'GET', url: `/v1/jobs/${jobId}` });
    expect(view.json()).toMatchObject({ state: 'running' });
    expect(view.json().ledger?.costUsd.limit ?? null).toBeNull();
    const listed = await beta.inject({ method: 'GET', url: '/v1/jobs?limit=1000' });
    expect(listed.json().jobs.map((j: { jobId: string }) => j.jobId)).not.toContain(jobId);
    expect((await alpha.inject({ method: 'POST', url: `/v1/jobs/${jobId}/cancel`, payload: {} })).statusCode).toBe(202);
    expect((await finalResult(alpha, jobId)).json().status).toBe('cancelled');
  });

  it('takes a control POST with a body only as application/json; one without a body (stop, cancel) is accepted', async () => {
    const jobId = uniqueId('csrf');
    expect((await alpha.inject({ method: 'POST', url: '/v1/jobs', payload: slowJob(jobId) })).statusCode).toBe(201);
    for (const headers of [{}, { 'content-type': 'text/plain' }, { 'content-type': 'application/x-www-form-urlencoded' }]) {
      const res = await alpha.inject({ method: 'POST', url: `/v1/jobs/${jobId}/cancel`, headers, payload: 'x=1' });
      expect(res.statusCode, JSON.stringify(headers)).toBe(415);
    }
    expect((await alpha.inject({ method: 'GET', url: `/v1/jobs/${jobId}` })).json().state).toBe('running');
    // no body and no content type, as `curl -X POST` sends it, as the REST reference promises
    const ok = await alpha.inject({ method: 'POST', url: `/v1/jobs/${jobId}/cancel` });
    expect(ok.statusCode, ok.body).toBe(202);
    expect((await finalResult(alpha, jobId)).json().status).toBe('cancelled');

    const stopped = uniqueId('stop-bare');
    expect((await alpha.inject({ method: 'POST', url: '/v1/jobs', payload: slowJob(stopped) })).statusCode).toBe(201);
    const stop = await alpha.inject({ method: 'POST', url: `/v1/jobs/${stopped}/stop` });
    expect(stop.statusCode, stop.body).toBe(202);
    expect(stop.json().status).toBe('stopping');
    // its hung step keeps it running after the stop; an empty JSON body is fine too
    const cancel = await alpha.inject({
      method: 'POST',
      url: `/v1/jobs/${stopped}/cancel`,
      headers: { 'content-type': 'application/json' },
    });
    expect(cancel.statusCode, cancel.body).toBe(202);
    // the cancel ends it, unless the stop already had (its step gave up first on a loaded machine): never a success
    expect(['cancelled', 'failure']).toContain((await finalResult(alpha, stopped)).json().status);
  });

  it('declares the bearer scheme and an operationId on every operation', async () => {
    const doc = (await anon.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    const ops = Object.entries(doc.paths as Record<string, Record<string, { operationId?: string; security?: unknown[] }>>).flatMap(
      ([path, methods]) => Object.entries(methods).map(([method, op]) => ({ at: `${method} ${path}`, ...op })),
    );
    expect(ops.length).toBeGreaterThanOrEqual(11);
    for (const op of ops) expect(op.operationId, op.at).toMatch(/^[a-z][A-Za-z]+$/);
    expect(new Set(ops.map((o) => o.operationId)).size).toBe(ops.length);
    expect(ops.find((o) => o.at === 'get /healthz')?.security).toEqual([]);
  });

  it('refuses to build without keys unless auth is off, and says so when it is', async () => {
    const client = await testClient();
    const registry = loadRegistry(inject('agentsFile'));
    const keyless = { ...testConfig(), DELEGATE_API_KEYS_FILE: undefined };
    await expect(
      buildApp({ config: keyless, client, registry, tenants: loadTenants(keyless), record: await testRecord() }),
    ).rejects.toThrow(/DELEGATE_API_KEYS/);
    const off = testConfig({ DELEGATE_AUTH: 'off' });
    const open = await buildApp({ config: off, client, registry, tenants: loadTenants(off), record: await testRecord() });
    onTestFinished(() => open.close());
    const ready = (await open.inject({ method: 'GET', url: '/readyz' })).json();
    expect(ready).toMatchObject({ auth: 'off' });
    expect(ready.warning).toMatch(/DELEGATE_AUTH=off/);
    expect((await open.inject({ method: 'GET', url: '/v1/agents' })).statusCode).toBe(200);
  });
});

describe('quotas, refused before anything starts', () => {
  it('answers 429 with Retry-After past the request rate', async () => {
    const limited = await appForTest({}, 'limited');
    const codes: number[] = [];
    let retryAfter: string | undefined;
    for (let i = 0; i < TEST_TENANTS.limited.quotas.requestsPerMinute + 5; i++) {
      const res = await limited.inject({ method: 'GET', url: '/v1/agents' });
      codes.push(res.statusCode);
      if (res.statusCode === 429) {
        retryAfter = res.headers['retry-after'] as string;
        expect(res.headers['content-type']).toContain('application/problem+json');
      }
    }
    expect(codes.filter((c) => c === 200)).toHaveLength(TEST_TENANTS.limited.quotas.requestsPerMinute);
    expect(codes.slice(-5)).toEqual([429, 429, 429, 429, 429]);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    // another tenant is not affected
    expect((await alpha.inject({ method: 'GET', url: '/v1/agents' })).statusCode).toBe(200);
  });

  it('limits requests that fail authentication too, per client address', async () => {
    const guarded = await appForTest({ DELEGATE_QUOTA_REQUESTS_PER_MINUTE: '5' }, null);
    const codes = [];
    for (let i = 0; i < 7; i++)
      codes.push(
        (await guarded.inject({ method: 'GET', url: '/v1/jobs', headers: { authorization: `Bearer guess-${i}-0123456789abcdef` } }))
          .statusCode,
      );
    expect(codes).toEqual([401, 401, 401, 401, 401, 429, 429]);
    // public routes stay open
    expect((await guarded.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it('counts subtasks across every level of nesting against the per-request cap', async () => {
    // a fresh app: the rate-limit test above spent this tenant's requests in its own app
    const limited = await appForTest({}, 'limited');
    const jobId = uniqueId('nestcap');
    const leaf = (id: string) => ({ id, question: 'q', agent: 'echo' });
    // 3 tasks at the root, but 2 + 2 + 2 = 6 subtasks below them: over a quota of 5
    const nested = (id: string) => ({ id, question: 'q', job: { pattern: 'fanout', tasks: [leaf('a'), leaf('b')] } });
    const res = await limited.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: { jobId, pattern: 'fanout', tasks: [nested('x'), nested('y'), nested('z')] },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual([
      { path: 'body.tasks', message: "6 subtasks across every level of nesting; this tenant's quota is 5" },
    ]);
    expect(await jobsStartedWithId(jobId, 'limited')).toBe(0);
    // and for everyone, nesting cannot pass the engine's 10,000 per job
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `t${i}`, question: 'q', agent: 'echo' }));
    const big = {
      pattern: 'fanout',
      tasks: [0, 1, 2].map((i) => ({ id: `n${i}`, question: 'q', job: { pattern: 'fanout', tasks: many(3500) } })),
    };
    const tooMany = await alpha.inject({ method: 'POST', url: '/v1/jobs', payload: big });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().errors[0]).toEqual({
      path: 'body.tasks',
      message: '10500 subtasks across every level of nesting; a job takes at most 10000',
    });
  });

  it('refuses a job past the running-jobs quota with 429, but answers a resubmission of a running job', async () => {
    const limited = await appForTest({}, 'limited');
    const first = uniqueId('run1');
    try {
      expect((await limited.inject({ method: 'POST', url: '/v1/jobs', payload: slowJob(first) })).statusCode).toBe(201);
      const second = uniqueId('run2');
      const refused = await limited.inject({ method: 'POST', url: '/v1/jobs', payload: slowJob(second) });
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(await jobsStartedWithId(second, 'limited')).toBe(0);
      expect((await limited.inject({ method: 'POST', url: '/v1/jobs', payload: slowJob(first) })).statusCode).toBe(200);
    } finally {
      await limited.inject({ method: 'POST', url: `/v1/jobs/${first}/cancel`, payload: {} });
      await finalResult(limited, first);
    }
  });

  it('cannot be passed by submissions sent at the same moment', async () => {
    const limited = await appForTest({}, 'limited');
    const ids = Array.from({ length: 6 }, () => uniqueId('race'));
    // visibility is eventually consistent: start from no running job of this tenant
    const client = await testClient();
    await pollUntil(
      async () => (await client.workflow.count(`DelegateTenant = 'limited' AND ExecutionStatus = 'Running'`)).count === 0,
      'the tenant still has running jobs',
      60_000,
    );
    try {
      const codes = await Promise.all(
        ids.map((id) => limited.inject({ method: 'POST', url: '/v1/jobs', payload: slowJob(id) }).then((r) => r.statusCode)),
      );
      expect(codes.filter((c) => c === 201)).toHaveLength(TEST_TENANTS.limited.quotas.runningJobs);
      expect(codes.filter((c) => c === 429)).toHaveLength(ids.length - TEST_TENANTS.limited.quotas.runningJobs);
    } finally {
      for (const id of ids) await limited.inject({ method: 'POST', url: `/v1/jobs/${id}/cancel`, payload: {} });
    }
  });
});

describe('the workflow checks its own input', () => {
  it('fails a job started straight through Temporal with input the API would refuse', async () => {
    const client = await testClient();
    const bad = [
      { spec: { jobId: uniqueId('wfbad'), pattern: 'fanout', tasks: [{ id: 'a', question: 'q', agent: 'echo' }], labels: { k: 'a"b' } } },
      { spec: { jobId: uniqueId('wfbad'), pattern: 'fanout', tasks: [{ id: 'a', question: 'q', agent: 'echo' }] }, tenant: '..' },
      {
        spec: {
          jobId: uniqueId('wfbad'),
          pattern: 'fanout',
          tasks: [0, 1].map((i) => ({
            id: `n${i}`,
            question: 'q',
            job: { pattern: 'fanout', tasks: Array.from({ length: 5001 }, (_, j) => ({ id: `t${j}`, question: 'q', agent: 'echo' })) },
          })),
        },
      },
    ];
    for (const input of bad) {
      const run = client.workflow.execute(delegationJob, {
        taskQueue: inject('taskQueue'),
        workflowId: `job/test/${input.spec.jobId}`,
        args: [input as never],
      });
      const err = await run.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(WorkflowFailedError);
      expect((err as WorkflowFailedError).cause).toMatchObject({ type: 'InvalidInput' });
    }
  });

  it('starts a job the API submitted as checked, with an input that meets the same rules: the run does not load them again', async () => {
    const jobId = uniqueId('checked');
    const res = await alpha.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: {
        jobId,
        pattern: 'fanout',
        tasks: [{ id: 'a', question: 'q', agent: 'echo', budget: { costUsd: 1 } }],
        labels: { team: 'x' },
      },
    });
    expect(res.statusCode).toBe(201);
    const { workflowId } = res.json() as { workflowId: string };
    const history = await (await testClient()).workflow.getHandle(workflowId).fetchHistory();
    const payload = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!.data!;
    const input = JSON.parse(Buffer.from(payload).toString('utf8')) as Record<string, unknown>;
    expect(input.checked).toBe(true);
    expect(jobInputProblems(input)).toEqual([]);
    // the run trusts the flag: an input the rules refuse (a label with a quote) runs when it is set
    const trusted = {
      spec: { jobId: uniqueId('trusted'), pattern: 'fanout', tasks: [{ id: 'a', question: 'q', agent: 'echo' }], labels: { k: 'a"b' } },
    };
    expect(jobInputProblems(trusted)).not.toEqual([]);
    const result = await (
      await testClient()
    ).workflow.execute(delegationJob, {
      taskQueue: inject('taskQueue'),
      workflowId: `job/test/${trusted.spec.jobId}`,
      args: [{ ...trusted, checked: true } as never],
    });
    expect(result.status).toBe('success');
  });
});
