/**
 * What an operator sees in the Temporal UI (read back through the Temporal API, which the UI
 * reads too): a failed subtask listed as failed, search attributes that find failed subtasks
 * and budget halts, `task-id · agent · question` summaries, live current details and
 * described handlers. The job's own result stays whole.
 */
import { workflowMetadataQuery } from '@temporalio/workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobResult } from '../../schemas';
import { DEFAULT_WORKFLOW_STACK_FRAMES } from '../../core/engine-limits';
import { grantSignal } from '../../contracts/messages';
import { finalResult, pollUntil, startJob, testClient, uniqueId, useApp } from '../helpers';

const app = useApp();
const run = uniqueId('ui');
const jobId = uniqueId('ui-job');
const root = `job/default/${jobId}`;
let result: JobResult;
/** A voter; a slow one never answers (hang until the early decision cancels it). */
const voter = (id: string, answer: string, slow = false) => ({
  id,
  question: 'Capital of France?',
  agent: 'sim',
  params: { answer, hang: slow },
});

/** Workflow ids a visibility query finds, sorted; polled until `expected` holds (visibility lags a little). */
async function found(query: string, expected: string[]): Promise<string[]> {
  const client = await testClient();
  let ids: string[] = [];
  await pollUntil(
    async () => {
      ids = [];
      for await (const wf of client.workflow.list({ query: `${query} AND DelegateLabels = "run=${run}"` })) ids.push(wf.workflowId);
      ids.sort();
      return JSON.stringify(ids) === JSON.stringify(expected);
    },
    `query ${query}`,
    30_000,
  ).catch(() => undefined);
  return ids;
}

/** The UI's metadata of a workflow: handler descriptions and current details. */
async function metadata(workflowId: string) {
  return (await testClient()).workflow.getHandle(workflowId).query(workflowMetadataQuery);
}

beforeAll(async () => {
  const submit = await app.inject({
    method: 'POST',
    url: '/v1/jobs',
    payload: {
      jobId,
      pattern: 'fanout',
      labels: { run },
      tasks: [
        { id: 'ok', question: 'Say hello', agent: 'echo' },
        { id: 'bad', question: 'Fail for good', agent: 'sim', params: { fatal: true } },
        { id: 'halt', question: 'Spend too much', agent: 'sim', params: { steps: 5, costUsd: 0.01 }, budget: { costUsd: 0.02 } },
        {
          id: 'slow',
          question: 'Take three steps',
          agent: 'sim',
          params: { steps: 3, latencyMs: 1500, costUsd: 0.001 },
          budget: { costUsd: 1, tokens: 10_000 },
        },
        {
          id: 'poll',
          question: 'Capital of France?',
          // three of five agree at once: the vote stops early and cancels the two slow voters
          job: {
            pattern: 'vote',
            vote: { strategy: 'majority' },
            tasks: [voter('v1', 'Paris'), voter('v2', 'Paris'), voter('v3', 'Paris'), voter('v4', 'Lyon', true), voter('v5', 'Lyon', true)],
          },
        },
      ],
    },
  });
  expect(submit.statusCode, submit.body).toBe(201);
  // the running subtask shows where it is, and its details change as it goes
  const seen = new Set<string>();
  await pollUntil(
    async () => {
      const details = (await metadata(`${root}/slow`).catch(() => undefined))?.currentDetails;
      if (details) seen.add(details);
      return [...seen].some((d) => d.includes('step 1 ·')) && [...seen].some((d) => d.includes('step 2 ·'));
    },
    'the slow subtask never showed steps 1 and 2 in its details',
    60_000,
  );
  result = (await finalResult(app, jobId)).json();
});

describe('the Temporal UI tells the story', () => {
  it("a failed subtask's run fails, the others complete, and the job keeps every result whole", async () => {
    const client = await testClient();
    const state = async (id: string) => (await client.workflow.getHandle(`${root}/${id}`).describe()).status.name;
    expect(await state('bad')).toBe('FAILED');
    for (const id of ['ok', 'halt', 'slow', 'poll', 'poll/v1', 'poll/v4', 'poll/v5']) expect(await state(id), id).toBe('COMPLETED');
    const bad = result.results.find((r) => r.id === 'bad')!;
    expect(bad).toMatchObject({ agentId: 'sim', status: 'failure', failureReason: 'agent_error', confidence: 0 });
    expect(bad.errors.join(' ')).toContain('fatal error at step 0');
    expect(bad.metrics.attempts).toBe(1);
    expect(result.results.find((r) => r.id === 'halt')).toMatchObject({ status: 'partial', failureReason: 'budget_exhausted' });
    // the failure's message says why, for the UI's list
    const failed = await client.workflow
      .getHandle(`${root}/bad`)
      .result()
      .catch((e: Error) => e);
    expect(String((failed as Error & { cause?: Error }).cause?.message)).toContain('agent_error: sim: fatal error at step 0');
  });

  it('subtasks carry status, failure reason, agent, tenant, pattern and labels', async () => {
    const sa = async (id: string) => (await (await testClient()).workflow.getHandle(`${root}/${id}`).describe()).searchAttributes;
    expect(await sa('bad')).toMatchObject({
      DelegateStatus: ['failure'],
      DelegateFailureReason: ['agent_error'],
      DelegateAgent: ['sim'],
      DelegateTenant: ['default'],
      DelegatePattern: ['fanout'],
      DelegateLabels: [`run=${run}`],
    });
    expect(await sa('ok')).toMatchObject({ DelegateStatus: ['success'], DelegateAgent: ['echo'] });
    expect((await sa('ok')).DelegateFailureReason).toBeUndefined();
    expect(await sa('poll/v4')).toMatchObject({
      DelegateStatus: ['cancelled'],
      DelegateFailureReason: ['cancelled'],
      DelegatePattern: ['vote'],
      DelegateLabels: [`run=${run}`],
    });
  });

  it('the queries of the Temporal UI guide find exactly the failed subtasks, the budget halts and the voters an early decision cut off', async () => {
    expect(await found('DelegateStatus = "failure"', [`${root}/bad`])).toEqual([`${root}/bad`]);
    expect(await found('DelegateFailureReason = "budget_exhausted"', [`${root}/halt`])).toEqual([`${root}/halt`]);
    expect(await found('DelegateStatus = "cancelled"', [`${root}/poll/v4`, `${root}/poll/v5`])).toEqual([
      `${root}/poll/v4`,
      `${root}/poll/v5`,
    ]);
    expect(await found('ExecutionStatus = "Failed" AND WorkflowType = "subtask"', [`${root}/bad`])).toEqual([`${root}/bad`]);
  });

  it('summaries read task-id · agent · question; five voters with one question tell apart', async () => {
    const client = await testClient();
    const summary = async (id: string) => (await client.workflow.getHandle(`${root}/${id}`).describe()).staticSummary();
    expect(await summary('bad')).toBe('bad · sim · Fail for good');
    expect(await summary('poll')).toBe('poll · job:vote · Capital of France?');
    const voters = await Promise.all(['v1', 'v2', 'v3', 'v4', 'v5'].map((v) => summary(`poll/${v}`)));
    expect(new Set(voters).size).toBe(5);
    expect(voters[0]).toBe('v1 · sim · Capital of France?');
    // the job's own details: who submitted it, its labels and its tasks
    const details = await client.workflow
      .getHandle(root)
      .describe()
      .then((d) => d.staticDetails());
    expect(details).toContain(`tenant \`default\` · labels \`run=${run}\` · budget none`);
    expect(details).toContain('- bad: Fail for good');
  });

  it("current details: a subtask's step, attempts and spend against its budget; the job's counts and ledger", async () => {
    const slow = (await metadata(`${root}/slow`)).currentDetails;
    expect(slow).toContain('**slow** · sim · done');
    expect(slow).toContain('step 3 · attempts 3');
    expect(slow).toMatch(/\| spent \| \$0\.003 \| \d+ \| 0 \| [\d.]+s \|/);
    expect(slow).toContain('| limit | $1 | 10000 | ∞ | ∞ |');
    expect((await metadata(`${root}/bad`)).currentDetails).toContain('last error: sim: fatal error at step 0');
    const job = (await metadata(root)).currentDetails;
    expect(job).toContain(`**fanout** \`${jobId}\``);
    // 5 tasks: ok, slow, poll succeeded; halt partial; bad failed
    expect(job).toContain('| 5 | 0 | 0 | 3 | 1 | 1 |');
    expect(job).toMatch(/\| reserved \|/);
  });

  it('queries, signals and updates carry descriptions', async () => {
    const job = (await metadata(root)).definition!;
    const described = (defs: { name?: string | null; description?: string | null }[] | null | undefined) =>
      Object.fromEntries((defs ?? []).filter((d) => !d.name?.startsWith('__')).map((d) => [d.name, d.description]));
    const jobHandlers = { ...described(job.queryDefinitions), ...described(job.signalDefinitions), ...described(job.updateDefinitions) };
    for (const name of ['status', 'stop', 'cancelJob', 'budget', 'subtaskBudget', 'grant', 'grantTask'])
      expect(jobHandlers[name], name).toMatch(/\w{4,}/);
    const sub = (await metadata(`${root}/slow`)).definition!;
    const subHandlers = { ...described(sub.queryDefinitions), ...described(sub.signalDefinitions) };
    for (const name of ['status', 'stop', 'cancel', 'grant']) expect(subHandlers[name], name).toMatch(/\w{4,}/);
  });
});

describe('a running job in the UI', () => {
  const id = uniqueId('running');
  let handle: Awaited<ReturnType<typeof startJob>>;
  const sub = () => `${handle.workflowId}/wait`;
  beforeAll(async () => {
    handle = await startJob({
      jobId: id,
      pattern: 'fanout',
      tasks: [{ id: 'wait', question: 'q', agent: 'sim', params: { hang: true }, budget: { costUsd: 1 } }],
    });
    await pollUntil(
      async () => (await metadata(sub()).catch(() => undefined))?.currentDetails?.includes('· running') ?? false,
      'the subtask never showed itself running',
    );
  });
  afterAll(() => handle.terminate('test over'));

  it("shows the state at the moment of the look: the job's counts, a grant the subtask was just sent", async () => {
    expect((await metadata(handle.workflowId)).currentDetails).toContain('| 1 | 0 | 1 | 0 | 0 | 0 |');
    expect((await metadata(sub())).currentDetails).toContain('| limit | $1 |');
    await (await testClient()).workflow.getHandle(sub()).signal(grantSignal, { add: { costUsd: 2 } });
    await pollUntil(
      async () => (await metadata(sub())).currentDetails?.includes('| limit | $3 |') ?? false,
      'the granted money never showed in the limit row',
    );
  });

  it("a running subtask carries none of Delegate's search attributes yet; the guide's queries for running subtasks find it", async () => {
    const client = await testClient();
    const attrs = (await client.workflow.getHandle(sub()).describe()).searchAttributes;
    expect(Object.keys(attrs).filter((k) => k.startsWith('Delegate'))).toEqual([]);
    // the Temporal UI guide's queries: a job's running subtasks, and a tenant's (by the workflow id's prefix)
    const found = async (query: string) => {
      const ids: string[] = [];
      for await (const wf of client.workflow.list({ query })) ids.push(wf.workflowId);
      return ids;
    };
    await pollUntil(
      async () => (await found(`ParentWorkflowId = "${handle.workflowId}" AND ExecutionStatus = "Running"`)).includes(sub()),
      "the job's running subtasks never listed the waiting one",
    );
    // startJob's tenant is `test`: its jobs' workflow ids begin `job/test/`
    await pollUntil(
      async () =>
        (await found('WorkflowType = "subtask" AND WorkflowId STARTS_WITH "job/test/" AND ExecutionStatus = "Running"')).includes(sub()),
      "the tenant's running subtasks never listed the waiting one",
    );
  });

  it('names the lines a waiting subtask and its job wait on, in stacks of at most DELEGATE_WORKFLOW_STACK_FRAMES frames', async () => {
    const client = await testClient();
    let stacks = '';
    await pollUntil(
      async () => {
        stacks = await client.workflow
          .getHandle(sub())
          .query<string>('__stack_trace')
          .catch(() => '');
        return stacks.includes('workflows/subtask/');
      },
      () => `the subtask's stack trace never named its own code: ${stacks}`,
    );
    const job = await handle.query<string>('__stack_trace');
    expect(job).toContain('workflows/patterns/fanout.ts');
    // one stack per pending promise; V8's default of 10 frames shows blocks of 7-8 SDK lines
    for (const block of [stacks, job].flatMap((s) => s.split(/\n\s*\n/)))
      expect(block.split('\n').filter((l) => l.trim().startsWith('at ')).length, block).toBeLessThanOrEqual(DEFAULT_WORKFLOW_STACK_FRAMES);
  });
});
