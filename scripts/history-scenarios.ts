/**
 * The jobs whose histories the replay test runs: one per pattern and per way a job's
 * history can branch (top-ups, stop, cancel, webhook, continue-as-new, refusal). Each
 * starts its job straight through Temporal, drives it to its end and names the runs to keep.
 */
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { JobSpec } from '../schemas';
import type { EngineLimits } from '../core/engine-limits';
import { BATCH_THRESHOLD, MIDDLE_THRESHOLD } from '../workflows/patterns/batching';

/** What a scenario gets to run its job. */
export interface ScenarioContext {
  client: Client;
  taskQueue: string;
  /** A loopback URL that answers 200 to completion webhooks. */
  webhookUrl: string;
}

/** One recorded job: its root workflow id is `job/rec/<name>`; every workflow under it is kept unless `keep` says no. */
export interface Scenario {
  name: string;
  run(ctx: ScenarioContext, workflowId: string): Promise<void>;
  keep?(workflowId: string, root: string): boolean;
}

type Task = JobSpec['tasks'][number];
const sim = (id: string, params: Record<string, unknown>, extra: Partial<Task> = {}): Task => ({
  id,
  question: `task ${id}`,
  agent: 'sim',
  params,
  ...extra,
});
const echo = (id: string): Task => ({ id, question: `q ${id}`, agent: 'echo' });

function start(ctx: ScenarioContext, workflowId: string, spec: Omit<JobSpec, 'jobId'>, limits: EngineLimits = {}) {
  const jobId = workflowId.split('/').at(-1)!;
  return ctx.client.workflow.start('delegationJob', {
    taskQueue: ctx.taskQueue,
    workflowId,
    args: [{ spec: { ...spec, jobId }, tenant: 'rec', maxDepth: 3, limits }],
  });
}

/** Runs a job to its end, failed or not: some scenarios end in a failure on purpose. */
async function finish(handle: WorkflowHandle): Promise<void> {
  await handle.result().catch(() => undefined);
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const subtaskStatus = (ctx: ScenarioContext, id: string) =>
  ctx.client.workflow.getHandle(id).query<{ phase: string; steps: number }>('status');

/** Starts a job of slow subtasks, waits until `child` has done a step, then calls `act`. */
async function interrupt(ctx: ScenarioContext, workflowId: string, act: (h: WorkflowHandle) => Promise<void>) {
  const h = await start(ctx, workflowId, {
    pattern: 'fanout',
    tasks: [sim('a', { steps: 1000, latencyMs: 50, costUsd: 0.001 }), sim('b', { steps: 1000, latencyMs: 50 })],
  });
  await until(async () => (await subtaskStatus(ctx, `${workflowId}/a`)).steps >= 2, 'subtask a to take steps');
  await act(h);
  await finish(h);
}

/** The agents file the recorder's worker loads: an llm agent on the fake provider at `llmUrl`, and one role it plays. */
export function scenarioAgents(llmUrl: string) {
  return {
    agents: [
      {
        kind: 'llm',
        id: 'role-player',
        baseUrl: `${llmUrl}/v1`,
        model: 'role',
        maxTokensPerStep: 500,
        timeoutSeconds: 10,
        tools: [{ name: 'search', url: `${llmUrl}/tools/search` }],
      },
    ],
    skills: [{ id: 'checklist', title: 'Checklist', text: 'Name the subject and at most four findings.' }],
    roles: [
      {
        id: 'review',
        persona: 'You review.',
        agent: 'role-player',
        requiredSkills: ['checklist'],
        tools: ['search'],
        outputKinds: { code_review: ['review'] },
        maxOutputTokens: 300,
      },
    ],
  };
}

/** Every scenario the fixtures hold. */
export const SCENARIOS: Scenario[] = [
  {
    name: 'fanout',
    run: async (ctx, id) =>
      finish(
        await start(ctx, id, {
          pattern: 'fanout',
          budget: { costUsd: 1 },
          tasks: [echo('a'), echo('b'), sim('c', { steps: 2, costUsd: 0.01 })],
        }),
      ),
  },
  {
    name: 'pipeline',
    run: async (ctx, id) =>
      finish(
        await start(ctx, id, {
          pattern: 'pipeline',
          tasks: [sim('s0', { answer: { v: 'A' } }), sim('s1', { echoPrevious: true }), sim('s2', { echoPrevious: true })],
        }),
      ),
  },
  {
    name: 'vote',
    run: async (ctx, id) =>
      finish(
        await start(ctx, id, {
          pattern: 'vote',
          vote: { strategy: 'majority' },
          tasks: [sim('v1', { answer: 'Paris' }), sim('v2', { answer: 'paris' }), sim('v3', { answer: 'Lyon' })],
        }),
      ),
  },
  {
    name: 'nested',
    run: async (ctx, id) =>
      finish(
        await start(ctx, id, {
          pattern: 'pipeline',
          tasks: [
            { id: 'gather', question: 'gather', job: { pattern: 'fanout', tasks: [echo('x'), echo('y')] } },
            {
              id: 'decide',
              question: 'decide',
              job: { pattern: 'vote', tasks: [sim('d1', { answer: 'yes' }), sim('d2', { answer: 'yes' })] },
            },
          ],
        }),
      ),
  },
  {
    // one more task than the threshold: the root, one batch and one of its subtasks are kept
    name: 'batched',
    run: async (ctx, id) =>
      finish(
        await start(ctx, id, {
          pattern: 'fanout',
          maxParallel: 200,
          tasks: Array.from({ length: BATCH_THRESHOLD + 1 }, (_, i) => echo(`t${i}`)),
        }),
      ),
    keep: (wf, root) => wf === root || wf === `${root}/batch-0001` || wf === `${root}/batch-0001/t0`,
  },
  {
    // a fan-out of the middle band (101–500 tasks) since MIDDLE_BATCH_PATCH: two batches of 60, both at once
    name: 'batched-middle',
    run: async (ctx, id) =>
      finish(
        await start(ctx, id, {
          pattern: 'fanout',
          maxParallel: 40,
          tasks: Array.from({ length: MIDDLE_THRESHOLD + 20 }, (_, i) => echo(`t${i}`)),
        }),
      ),
    keep: (wf, root) => wf === root || wf === `${root}/batch-0001` || wf === `${root}/batch-0001/t0`,
  },
  {
    // a subtask top-up (update `subtaskBudget`) within the job's budget, a job top-up (update `budget`), then a subtask top-up out of it
    name: 'top-ups',
    run: async (ctx, id) => {
      const h = await start(ctx, id, {
        pattern: 'fanout',
        budget: { costUsd: 0.05 },
        tasks: [sim('t', { steps: 10, costUsd: 0.01 }, { budget: { costUsd: 0.03 }, budgetWaitSeconds: 120 })],
      });
      const waitingAt = (steps: number) =>
        until(async () => {
          const s = await subtaskStatus(ctx, `${id}/t`);
          return s.phase === 'waiting_for_budget' && s.steps === steps;
        }, `subtask waiting for budget after ${steps} steps`);
      await waitingAt(3);
      await h.executeUpdate('subtaskBudget', { args: [{ taskId: 't', add: { costUsd: 0.02 } }] });
      await waitingAt(5);
      await h.executeUpdate('budget', { args: [{ add: { costUsd: 0.05 } }] });
      await h.executeUpdate('subtaskBudget', { args: [{ taskId: 't', add: { costUsd: 0.05 } }] });
      await finish(h);
    },
  },
  { name: 'stop', run: (ctx, id) => interrupt(ctx, id, (h) => h.signal('stop', { reason: 'recorded stop' })) },
  { name: 'cancel', run: (ctx, id) => interrupt(ctx, id, async (h) => void (await h.cancel())) },
  {
    name: 'webhook',
    run: async (ctx, id) => {
      await finish(await start(ctx, id, { pattern: 'fanout', callbackUrl: ctx.webhookUrl, tasks: [echo('a')] }));
      await until(
        async () => (await ctx.client.workflow.getHandle(`${id}/~webhook`).describe()).status.name === 'COMPLETED',
        'webhook delivered',
      );
    },
  },
  {
    // 5 steps, 2 per run: the subtask continues as new twice
    name: 'long-subtask',
    run: async (ctx, id) =>
      finish(await start(ctx, id, { pattern: 'fanout', tasks: [sim('long', { steps: 5, costUsd: 0.001 })] }, { subtaskStepsPerRun: 2 })),
  },
  {
    // 5 stages, 2 per run: the job continues as new twice
    name: 'long-pipeline',
    run: async (ctx, id) =>
      finish(
        await start(
          ctx,
          id,
          {
            pattern: 'pipeline',
            tasks: [sim('s0', { answer: 'A' }), ...['s1', 's2', 's3', 's4'].map((s) => sim(s, { echoPrevious: true }))],
          },
          { pipelineStagesPerRun: 2 },
        ),
      ),
  },
  {
    // refused by the workflow's own input check: no tasks
    name: 'refused',
    run: async (ctx, id) => finish(await start(ctx, id, { pattern: 'fanout', tasks: [] })),
  },
  {
    // recorded with the durable record: the job archives itself before it completes (patch
    // 'durable-record'); the histories above predate it and replay without the archive step
    name: 'archived',
    run: async (ctx, id) =>
      finish(
        await start(ctx, id, {
          pattern: 'fanout',
          objective: 'recorded',
          labels: { feature: 'replay' },
          tasks: [echo('a'), sim('b', { costUsd: 0.01 })],
        }),
      ),
  },
  {
    // recorded with subtasks that show their outcome (input `showOutcome`): subtasks upsert their outcome,
    // the failed one ends its run failed with its result, which the job takes back
    name: 'outcomes',
    run: async (ctx, id) =>
      finish(
        await start(ctx, id, {
          pattern: 'fanout',
          labels: { feature: 'outcomes' },
          tasks: [echo('ok'), sim('bad', { fatal: true }), sim('halt', { steps: 5, costUsd: 0.01 }, { budget: { costUsd: 0.02 } })],
        }),
      ),
  },
  {
    // recorded with host rules 1 (input `hostRules`): a stop condition ends a subtask after step 1, a rubric
    // goes to the judge activity (none configured here), a budget gone before the first step is partial, and
    // a research-contract summary of eight sentences is re-prompted once
    name: 'host-rules',
    run: async (ctx, id) =>
      finish(
        await start(ctx, id, {
          pattern: 'fanout',
          tasks: [
            sim('stop', { steps: 3, evidence: [{ id: 'e1', source: 'web', snippet: 'found' }] }, { stopConditions: ['evidence >= 1'] }),
            sim('rubric', { steps: 2 }, { stopConditions: ['mentions "Temporal"'] }),
            sim('broke', {}, { budget: { costUsd: 0 } }),
            sim('summary', { summary: 'One. Two. Three. Four. Five. Six. Seven. Eight.' }, { research: { parentId: 'plan_1' } }),
          ],
        }),
      ),
  },
  {
    // recorded with host rules 2: a step the latency budget cuts is cancelled and awaited until it says
    // what it spent (WAIT_CANCELLATION_COMPLETED), a second step runs its two steps before the cut
    name: 'cut-steps',
    run: async (ctx, id) =>
      finish(
        await start(ctx, id, {
          pattern: 'fanout',
          tasks: [
            sim('cut', { steps: 3, latencyMs: 1500, costUsd: 0.01 }, { budget: { latencySeconds: 2 } }),
            sim('whole', { steps: 2, costUsd: 0.01 }),
          ],
        }),
      ),
  },
  {
    // a weighted vote under the share-of-cast rule (patch 'weighted-vote-share'), decided early: three
    // voters at 0.9 hold 2.7 of at most 3.7 cast, so the slow fourth is cancelled
    name: 'weighted-vote',
    run: async (ctx, id) =>
      finish(
        await start(ctx, id, {
          pattern: 'vote',
          vote: { strategy: 'weighted' },
          tasks: [
            sim('w1', { answer: 'x', confidence: 0.9 }),
            sim('w2', { answer: 'x', confidence: 0.9 }),
            sim('w3', { answer: 'x', confidence: 0.9 }),
            sim('slow', { answer: 'y', confidence: 0.95, latencyMs: 20_000 }),
          ],
        }),
      ),
  },
  {
    // a code scout's job (input `scout`): the offline scout with exactly read_file and grep, and the
    // finishScout activity at the job's end (its record row is absent here: it settles nothing)
    name: 'scout',
    run: async (ctx, id) => {
      const jobId = id.split('/').at(-1)!;
      const spec = {
        jobId,
        pattern: 'fanout' as const,
        tasks: [
          {
            id: 'scout',
            question: 'where is `computeBackoff` defined',
            agent: 'scout',
            params: { paths: ['test/fixtures/scout-tree'] },
            scope: ['read_file', 'grep'],
          },
        ],
      };
      const scout = { id: 'scout-rec-20261201-aaaaaa', autoCommit: true, maxTokens: 500, tokenizer: 'o200k' };
      await finish(
        await ctx.client.workflow.start('delegationJob', {
          taskQueue: ctx.taskQueue,
          workflowId: id,
          args: [{ spec, tenant: 'rec', maxDepth: 3, scout }],
        }),
      );
    },
  },
  {
    // role children under the bootstrap protocol (one bootstrapping twice), and a model switch
    // between them: the host's answers, skill loads and the job's model update in the history
    name: 'role',
    run: async (ctx, id) => {
      const task = (taskId: string) => ({
        id: taskId,
        question: `review ${taskId}`,
        role: 'review',
        taskType: 'code_review',
        subject: 'PR 1',
      });
      const h = await start(ctx, id, { pattern: 'fanout', maxParallel: 1, model: 'role-twice+slow', tasks: [task('a'), task('b')] });
      await until(async () => (await subtaskStatus(ctx, `${id}/a`)).steps >= 1, 'role child a to take a step');
      await h.executeUpdate('model', { args: [{ model: 'role', maxOutputTokens: 200 }] });
      await finish(h);
    },
  },
  {
    // fallback agents (patch 'agent-fallbacks'): an agent the worker does not have falls back on echo; a failing
    // sim falls back past echo (it refuses sim's params) to another failing sim, and the task fails with all three tried
    name: 'fallback',
    run: async (ctx, id) =>
      finish(
        await start(ctx, id, {
          pattern: 'fanout',
          tasks: [
            { id: 'gone', question: 'q gone', agent: 'retired-agent', fallback: ['echo'] },
            sim(
              'fatal',
              { fatal: true },
              {
                fallback: ['echo', 'sim'],
                retry: { maxAttempts: 1, initialIntervalSeconds: 1, backoffCoefficient: 2, maximumIntervalSeconds: 1 },
              },
            ),
          ],
        }),
      ),
  },
  {
    // an agent's circuit breaker (the entity workflow, run under the scenario's id): failures open it, a trial
    // is refused while open, granted after the cool-down, released, granted again, and a success closes it;
    // a low eventsPerRun makes it continue as new; cancelling it retires it
    name: 'breaker',
    run: async (ctx, id) => {
      const h = await ctx.client.workflow.start('agentBreaker', {
        taskQueue: ctx.taskQueue,
        workflowId: id,
        args: [{ agentId: 'rec-agent', settings: { failures: 2, cooldownMs: 1000 }, eventsPerRun: 30 }],
      });
      const outcome = (ok: boolean) => h.signal('stepOutcome', { ok, at: Date.now(), ...(ok ? {} : { error: 'recorded failure' }) });
      const trial = (holder: string) =>
        h.executeUpdate<{ granted: boolean }, [{ holder: string; leaseMs: number }]>('acquireTrial', { args: [{ holder, leaseMs: 5000 }] });
      await outcome(false);
      await outcome(true);
      await outcome(false);
      await outcome(false);
      await trial('early');
      await new Promise((r) => setTimeout(r, 1100));
      await trial('first');
      await h.signal('releaseTrial', { holder: 'first' });
      await trial('second');
      await outcome(true);
      for (let i = 0; i < 6; i++) await outcome(false);
      await until(
        async () => (await ctx.client.workflow.getHandle(id).describe()).runId !== h.firstExecutionRunId,
        'the breaker to continue as new',
      );
      await outcome(true);
      await ctx.client.workflow.getHandle(id).cancel();
      await finish(ctx.client.workflow.getHandle(id));
    },
  },
  {
    // fair grants (patch 'fair-grants'): two at a time under one budget, shares weighted by leaves (the nested
    // job counts 2), a floor of one measured step, and late tasks waiting for what early ones gave back
    name: 'fair-grants',
    run: async (ctx, id) =>
      finish(
        await start(ctx, id, {
          pattern: 'fanout',
          budget: { costUsd: 0.05 },
          maxParallel: 2,
          tasks: [
            sim('a', { steps: 1, costUsd: 0.004 }),
            sim('b', { steps: 3, costUsd: 0.004 }),
            {
              id: 'n',
              question: 'nested',
              job: { pattern: 'fanout', tasks: [sim('n1', { costUsd: 0.002 }), sim('n2', { costUsd: 0.002 })] },
            },
            ...['c', 'd', 'e', 'f'].map((t) => sim(t, { steps: 2, costUsd: 0.004 })),
          ],
        }),
      ),
  },
  {
    // one run of the record's retention, as the prune schedule starts it
    name: 'prune',
    run: async (ctx, id) =>
      finish(
        await ctx.client.workflow.start('pruneArchive', {
          taskQueue: ctx.taskQueue,
          workflowId: id,
          args: [{ maxAgeDays: 1e-9, keepLabels: ['feature'], dryRun: false }],
        }),
      ),
  },
];
