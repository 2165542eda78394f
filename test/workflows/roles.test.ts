/**
 * Specialist roles end to end: a real Temporal server, the worker's llm executor, and the
 * local fake provider playing role children that follow (or break) the bootstrap protocol.
 */
import { describe, expect, inject, it } from 'vitest';
import type { JobResult, JobSpec } from '../../schemas';
import { finalResult, jobsStartedWithId, runJob, uniqueId, useApp } from '../helpers';

const app = useApp();

/** The raw bodies the fake provider received for `model`, in arrival order. */
async function captured(model: string): Promise<{ model: string; body: string }[]> {
  const res = await fetch(`${inject('fakeLlmUrl')}/v1/_captured?model=${encodeURIComponent(model)}`);
  return (await res.json()) as { model: string; body: string }[];
}

type Task = JobSpec['tasks'][number];
const reviewTask = (id: string, taskType: string, extra: Partial<Task> = {}): Task =>
  ({
    id,
    question: `${taskType}: is the retry loop in PR 12 safe?`,
    role: 'review',
    taskType,
    subject: 'PR 12',
    constraints: ['cite the lines'],
    ...extra,
  }) as Task;

/** A role job, straight through Temporal, on a tagged model (so this test finds its own requests). */
async function roleJob(script: string, tasks: Task[], extra: object = {}): Promise<{ result: JobResult; model: string }> {
  const model = `${script}#${uniqueId('m')}`;
  const result = await runJob({ jobId: uniqueId(script), pattern: 'fanout', model, tasks, ...extra });
  return { result, model };
}

describe('specialist roles: dispatch and the bootstrap protocol', () => {
  it('dispatches to a role over the API: bootstrap, every skill, the role tool, then a checked review', async () => {
    const jobId = uniqueId('role-api');
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: { jobId, pattern: 'fanout', tasks: [reviewTask('r', 'code_review')] },
    });
    expect(res.statusCode).toBe(201);
    const r = (await finalResult(app, jobId)).json() as JobResult;
    const t = r.results[0];
    expect(t).toMatchObject({
      status: 'success',
      agentId: 'role-player',
      failureReason: null,
      data: {
        result: {
          kind: 'review',
          subject: 'PR 12',
          verdict: 'comment',
          findings: [{ detail: expect.stringMatching(/^results for code_review/) }],
        },
      },
      role: {
        id: 'review',
        taskType: 'code_review',
        requiredSkills: ['review-checklist', 'house-style'],
        bootstrapped: true,
        protocolErrors: [],
        outputKind: 'review',
        maxOutputTokens: 300,
      },
      // bootstrap, two skills (one turn), search, answer: the search ran once, on the host's approval
      metrics: { steps: 4, toolCalls: 1 },
    });
    expect([...t.role!.loadedSkills].sort()).toEqual(['house-style', 'review-checklist']);
  });

  it('sends a byte-identical first request for every task type; the task arrives in the bootstrap result', async () => {
    const types = ['code_review', 'design_review', 'risk_scan'];
    const { result, model } = await roleJob(
      'role',
      types.map((ty, i) => reviewTask(`t${i}`, ty, { question: `question ${i} about ${ty}` })),
      { maxOutputTokens: 100_000 },
    );
    expect(result.results.map((t) => [t.status, t.role?.outputKind])).toEqual([
      ['success', 'review'],
      ['success', 'review'],
      ['success', 'report'],
    ]);
    const bodies = await captured(model);
    const firsts = bodies.filter((b) => (JSON.parse(b.body) as { messages: unknown[] }).messages.length === 2).map((b) => b.body);
    expect(firsts).toHaveLength(3);
    expect(new Set(firsts).size).toBe(1);
    console.log(`first request ${Buffer.byteLength(firsts[0])} B identical across ${types.length} task types`);
    const first = JSON.parse(firsts[0]) as { max_tokens: number; tools: { function: { name: string } }[] };
    expect(firsts[0]).not.toContain('question 0');
    expect(first.tools.map((t) => t.function.name)).toEqual(['delegation_bootstrap', 'load_skill', 'search']);
    // the role's cap holds against a larger parent allowance (and under the agent's 500 per step)
    expect(first.max_tokens).toBe(300);
    // the second request of each child carries its own task, from the bootstrap tool result
    const seconds = bodies.map((b) => b.body).filter((b) => (JSON.parse(b) as { messages: unknown[] }).messages.length === 4);
    for (let i = 0; i < 3; i++)
      expect(seconds.some((b) => b.includes(`question ${i} about ${types[i]}`) && b.includes('at most 4 findings'))).toBe(true);
  });

  it('answers a second bootstrap with a tool error, records it, and lets the child go on', async () => {
    const { result } = await roleJob('role-twice', [reviewTask('t', 'code_review')]);
    const t = result.results[0];
    expect(t.status).toBe('success');
    expect(t.role?.protocolErrors).toEqual([expect.stringMatching(/^delegation_bootstrap: .*already called.*exactly once/)]);
    expect([...t.role!.loadedSkills].sort()).toEqual(['house-style', 'review-checklist']);
  });

  it('refuses a role tool and the output of a child that skips its skills: tool error, one re-prompt, then invalid_output', async () => {
    const { result, model } = await roleJob('role-skip', [reviewTask('t', 'code_review')]);
    const t = result.results[0];
    expect(t).toMatchObject({
      status: 'failure',
      failureReason: 'invalid_output',
      role: { loadedSkills: [], bootstrapped: true, outputKind: null },
    });
    expect(t.role?.protocolErrors).toEqual([
      expect.stringMatching(/^search: load every required skill first: load_skill review-checklist, house-style/),
      expect.stringMatching(/^final output: .*before load_skill/),
      expect.stringMatching(/^final output: .*before load_skill/),
    ]);
    // the search was never run: no tool call was booked, and the fake's tool saw no request
    expect(t.metrics.toolCalls).toBe(0);
    const bodies = (await captured(model)).map((b) => b.body);
    expect(bodies.some((b) => b.includes('Protocol error: the final output came before load_skill'))).toBe(true);
  });

  it('refuses an output kind the task does not allow: one re-prompt, then invalid_output', async () => {
    const { result } = await roleJob('role-wrongkind', [reviewTask('t', 'code_review')]);
    const t = result.results[0];
    expect(t).toMatchObject({ status: 'failure', failureReason: 'invalid_output', role: { outputKind: null, protocolErrors: [] } });
    expect(t.errors).toEqual([
      expect.stringMatching(/output kind "draft" is not allowed for this task \(allowed: review/),
      expect.stringMatching(/output kind "draft" is not allowed/),
    ]);
  });
});

describe('specialist roles: structured_output', () => {
  it("takes the final output through the task's structured_output tool, offered after bootstrap with only the task's kinds", async () => {
    const { result, model } = await roleJob('role-structured', [reviewTask('t', 'risk_scan')]);
    const t = result.results[0];
    expect(t).toMatchObject({
      status: 'success',
      failureReason: null,
      data: { result: { kind: 'report', findings: [{ title: 'Main point' }] } },
      role: { outputKind: 'report', protocolErrors: [] },
    });
    type Body = { messages: unknown[]; tools: { function: { name: string; parameters: { properties: { result: object } } } }[] };
    const bodies = (await captured(model)).map((b) => JSON.parse(b.body) as Body);
    const names = (b: Body) => b.tools.map((d) => d.function.name);
    // not in the first request (the same bytes for every task type), nor in the role's allowlist
    expect(names(bodies[0])).toEqual(['delegation_bootstrap', 'load_skill', 'search']);
    const last = bodies[bodies.length - 1];
    expect(names(last)).toEqual(['delegation_bootstrap', 'load_skill', 'search', 'structured_output']);
    // the task's compact schema: a risk_scan allows a report, or the decision branch (not a review)
    const schema = JSON.stringify(last.tools[3].function.parameters);
    expect(schema).toContain('"report"');
    expect(schema).toContain('need_more_information');
    expect(schema).not.toContain('"review"');
    expect(schema).toContain('"maxItems":4');
  });
});

describe('specialist roles: the decision branch', () => {
  it('records a request for more information as partial, with the reason as a follow-up', async () => {
    const { result } = await roleJob('role-ask', [reviewTask('t', 'code_review')]);
    expect(result.results[0]).toMatchObject({
      status: 'partial',
      failureReason: null,
      agentId: 'role-player',
      data: { result: { decision: 'need_more_information', reason: 'which lines of PR 12?' } },
      followUps: ['need_more_information: which lines of PR 12?'],
      role: { outputKind: 'decision:need_more_information', protocolErrors: [] },
    });
  });
});

describe('specialist roles: the API checks a role task before it runs', () => {
  const submit = (tasks: object[], extra: object = {}) =>
    app.inject({ method: 'POST', url: '/v1/jobs', payload: { jobId: uniqueId('role-bad'), pattern: 'fanout', tasks, ...extra } });

  it('answers 422 with the path of an unknown role, a task type the role lacks, a depth over its cap and fallback agents', async () => {
    const jobId = uniqueId('role-422');
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: {
        jobId,
        pattern: 'fanout',
        tasks: [
          { id: 'a', question: 'q', role: 'auditor', taskType: 'x' },
          { id: 'b', question: 'q', role: 'review', taskType: 'poetry' },
          {
            id: 'c',
            question: 'q',
            job: { pattern: 'fanout', tasks: [{ id: 'd', question: 'q', role: 'review', taskType: 'code_review' }] },
          },
          { id: 'e', question: 'q', role: 'review', taskType: 'code_review', budgetWaitSeconds: 30 },
          { id: 'f', question: 'q', role: 'review', taskType: 'code_review', fallback: ['echo'] },
        ],
      },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual([
      { path: 'body.tasks[0].role', message: expect.stringMatching(/unknown role "auditor"; roles: review/) },
      {
        path: 'body.tasks[1].taskType',
        message: expect.stringMatching(/no task type "poetry"; its task types: code_review, design_review, risk_scan/),
      },
      { path: 'body.tasks[2].job.tasks[0].role', message: expect.stringMatching(/depth 0 at most; this task is at depth 1/) },
      { path: 'body.tasks[3].budgetWaitSeconds', message: expect.stringMatching(/never waits for a human/) },
      { path: 'body.tasks[4].fallback', message: expect.stringMatching(/played by its role's agent \("role-player"\): drop fallback/) },
    ]);
    expect(await jobsStartedWithId(jobId)).toBe(0);
  });

  it("answers 422 with the path of an approval on a role task, its own or its job's: a role task never waits for a human", async () => {
    const jobId = uniqueId('role-approval');
    const own = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: {
        jobId,
        pattern: 'fanout',
        tasks: [
          { id: 'a', question: 'q', role: 'review', taskType: 'code_review', approval: { beforeStart: true } },
          { id: 'b', question: 'q', agent: 'echo', approval: { beforeStart: true } },
        ],
      },
    });
    expect(own.statusCode).toBe(422);
    expect(own.json().errors).toEqual([{ path: 'body.tasks[0].approval', message: expect.stringMatching(/never waits for a human/) }]);
    const inherited = await submit([{ id: 'a', question: 'q', role: 'review', taskType: 'code_review' }], {
      approval: { tools: ['search'] },
    });
    expect(inherited.statusCode).toBe(422);
    expect(inherited.json().errors).toEqual([
      { path: 'body.approval', message: expect.stringMatching(/never waits for a human \(an approval\), and task "a" is one/) },
    ]);
    expect(await jobsStartedWithId(jobId)).toBe(0);
  });

  it('lists the roles beside the agents, without their personas', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/agents' });
    // the shared agents file's second role (review-claude) plays the same part on the Anthropic provider
    expect(res.json().roles.filter((r: { id: string }) => r.id === 'review')).toEqual([
      {
        id: 'review',
        agent: 'role-player',
        requiredSkills: ['review-checklist', 'house-style'],
        tools: ['search'],
        outputKinds: { code_review: ['review'], design_review: ['review', 'report'], risk_scan: ['report'] },
        maxOutputTokens: 300,
        maxDepth: 0,
      },
    ]);
    expect(JSON.stringify(res.json().roles)).not.toContain('meticulous');
  });

  it('answers 400 for a role task without a task type, or with an agent too', async () => {
    const res = await submit([
      { id: 'a', question: 'q', role: 'review' },
      { id: 'b', question: 'q', role: 'review', taskType: 'code_review', agent: 'echo' },
    ]);
    expect(res.statusCode).toBe(400);
    const paths = res.json().errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['body.tasks[0].taskType', 'body.tasks[1].agent']));
  });
});
