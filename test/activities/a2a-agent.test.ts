/**
 * A2A agents as subagents: a real A2A server built with the SDK (its request handler and Express
 * adapters) on loopback is the remote agent; a dedicated worker runs the jobs.
 */
import { TaskState, type Task } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus } from '@a2a-js/sdk/server';
import express, { type RequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2aAgent } from '../../activities/agents/a2a';
import { builtinAgents, createAgentRegistry } from '../../activities/agents/registry';
import type { InboxItem, JobResult, JobSpec } from '../../schemas';
import { decideUpdate } from '../../contracts/messages';
import { delegationJob } from '../../workflows/delegation-job';
import { a2aCard, agentMessage, answerArtifact, dataPart, startA2aRemote, statusUpdate, textPart, type A2aRemote } from '../a2a-remote';
import { startDedicatedWorker } from '../dedicated-worker';
import { fastRetry, pollUntil, testClient, testRecord, uniqueId } from '../helpers';

/** What the remote agent saw. */
const received: { messageId: string; taskId: string; contextId?: string; question: string; skill?: unknown }[] = [];
const cancels: string[] = [];
const hanging = new Map<string, () => void>();
/** messageIds the remote refused once with a 503 (a retryable failure before any task). */
const refusedOnce = new Set<string>();

/** The remote agent: what it does depends on the question's first word. */
const executor: AgentExecutor = {
  async execute(ctx, bus: ExecutionEventBus) {
    const question = ctx.userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
    received.push({
      messageId: ctx.userMessage.messageId,
      taskId: ctx.taskId,
      contextId: ctx.contextId,
      question,
      skill: ctx.userMessage.metadata?.skill,
    });
    const { taskId, contextId } = ctx;
    const status = (state: TaskState, text?: string) =>
      bus.publish(
        statusUpdate(taskId, contextId, state, text ? agentMessage(`${taskId}-${Math.random()}`, taskId, contextId, text) : undefined),
      );
    const task: Task = {
      id: taskId,
      contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
      artifacts: [],
      history: [ctx.userMessage],
      metadata: undefined,
    };
    // the answer to an input-required task: the same task goes on, and completes with it
    if (ctx.task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      bus.publish(AgentEvent.task({ ...ctx.task, status: { ...ctx.task.status, state: TaskState.TASK_STATE_WORKING } }));
      status(TaskState.TASK_STATE_WORKING, 'thanks, going on');
      bus.publish(answerArtifact(taskId, contextId, [dataPart({ year: question })]));
      status(TaskState.TASK_STATE_COMPLETED);
      bus.finished();
      return;
    }
    bus.publish(AgentEvent.task(task));
    const kind = question.split(' ')[0];
    if (kind === 'progress') {
      for (const n of [1, 2, 3]) {
        status(TaskState.TASK_STATE_WORKING, `looked at source ${n}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    } else status(TaskState.TASK_STATE_WORKING);
    if (kind === 'ask') status(TaskState.TASK_STATE_INPUT_REQUIRED, 'Which year do you mean?');
    else if (kind === 'fail') status(TaskState.TASK_STATE_FAILED, 'the upstream index is down');
    else if (kind === 'hang') await new Promise<void>((r) => hanging.set(taskId, r));
    else {
      bus.publish(answerArtifact(taskId, contextId, [dataPart({ answer: 42 }), textPart('The answer is 42.')]));
      status(TaskState.TASK_STATE_COMPLETED);
    }
    bus.finished();
  },
  async cancelTask(taskId, bus) {
    cancels.push(taskId);
    bus.publish(statusUpdate(taskId, '', TaskState.TASK_STATE_CANCELED));
    hanging.get(taskId)?.();
  },
};

let remote: A2aRemote;
let worker: Awaited<ReturnType<typeof startDedicatedWorker>>;

const cardOf = (streaming: boolean) => (url: string) =>
  a2aCard(url, streaming, {
    defaultOutputModes: ['application/json'],
    skills: [
      {
        id: 'answer',
        name: 'Answer',
        description: 'answers',
        tags: [],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
  });

beforeAll(async () => {
  // a retryable refusal before any task: the first try of a "flaky" message answers 503
  const flaky: RequestHandler = (req, res, next) => {
    const m = (req.body as { params?: { message?: { messageId?: string; parts?: { text?: string }[] } } })?.params?.message;
    if (m?.messageId && m.parts?.[0]?.text?.startsWith('flaky') && !refusedOnce.has(m.messageId)) {
      refusedOnce.add(m.messageId);
      received.push({ messageId: m.messageId, taskId: '', question: 'flaky (refused)' });
      res.status(503).end();
      return;
    }
    next();
  };
  remote = await startA2aRemote(executor, { '/streaming': cardOf(true), '/blocking': cardOf(false) }, [express.json(), flaky]);
  const { base } = remote;

  const common = { skill: 'answer', retry: fastRetry, timeoutSeconds: 30, pricing: { perTaskUsd: 0.01 } } as const;
  const registry = createAgentRegistry([
    ...builtinAgents,
    createA2aAgent(
      { kind: 'a2a', id: 'remote-a2a', cardUrl: `${base}/streaming/.well-known/agent-card.json`, ...common },
      { policy: { allowLoopback: true } },
    ),
    createA2aAgent(
      { kind: 'a2a', id: 'blocking-a2a', cardUrl: `${base}/blocking/.well-known/agent-card.json`, ...common },
      { policy: { allowLoopback: true } },
    ),
    // the same agent under the default policy: loopback is refused at connect time
    createA2aAgent({ kind: 'a2a', id: 'guarded-a2a', cardUrl: `${base}/streaming/.well-known/agent-card.json`, ...common }, { policy: {} }),
    createA2aAgent(
      { kind: 'a2a', id: 'wrong-skill-a2a', cardUrl: `${base}/streaming/.well-known/agent-card.json`, ...common, skill: 'translate' },
      { policy: { allowLoopback: true } },
    ),
  ]);
  worker = await startDedicatedWorker({ registry });
});
afterAll(async () => {
  for (const release of hanging.values()) release();
  await worker?.stop();
  await remote?.close();
});

const tenant = 'a2a-remote';
/** Starts a job on the dedicated worker; its handle. */
async function start(spec: Omit<JobSpec, 'jobId'>) {
  const jobId = uniqueId('a2a-agent');
  const client = await testClient();
  const handle = await client.workflow.start(delegationJob, {
    taskQueue: worker.taskQueue,
    workflowId: `job/${tenant}/${jobId}`,
    args: [{ spec: { ...spec, jobId } as JobSpec & { jobId: string }, tenant, maxDepth: 3 }],
  });
  return { jobId, handle };
}
const run = async (spec: Omit<JobSpec, 'jobId'>): Promise<JobResult & { jobId: string }> => {
  const { jobId, handle } = await start(spec);
  return { ...(await handle.result()), jobId };
};
const one = (agent: string, question: string) => ({ pattern: 'fanout' as const, tasks: [{ id: 't', question, agent }] });

describe('A2A agents as subagents', () => {
  it('takes a completed task: artifacts as the data, the price booked, the skill and a step-key message id sent', async () => {
    const r = await run(one('remote-a2a', 'complete the sentence'));
    expect(r.results[0]).toMatchObject({ status: 'success', agentId: 'remote-a2a', data: { answer: 42 }, summary: 'The answer is 42.' });
    expect(r.results[0]!.metrics.costUsd).toBeCloseTo(0.01);
    const seen = received.find((m) => m.question.startsWith('complete'))!;
    expect(seen.skill).toBe('answer');
    expect(seen.messageId).toBe(`delegate:job/${tenant}/${r.jobId}/t#0`);
    // a card without streaming: one blocking call
    const b = await run(one('blocking-a2a', 'complete it without a stream'));
    expect(b.results[0]).toMatchObject({ status: 'success', data: { answer: 42 } });
  });

  it("turns the remote's working updates into step events on the job's stream", async () => {
    const r = await run(one('remote-a2a', 'progress please'));
    expect(r.results[0]!.status).toBe('success');
    const events = await (await testRecord()).events.after(tenant, r.jobId, 0);
    const notes = events.filter((e) => e.type === 'subtask.step' && e.data.progress).map((e) => (e.data.progress as { text: string }).text);
    expect(notes).toEqual(['looked at source 1', 'looked at source 2', 'looked at source 3']);
  });

  it('ends an input-required task as partial with the remote question as a follow-up, and a failed one as a final failure', async () => {
    const r = await run({
      pattern: 'fanout',
      tasks: [
        { id: 'ask', question: 'ask me something', agent: 'remote-a2a' },
        { id: 'fail', question: 'fail now', agent: 'remote-a2a' },
      ],
    });
    const [ask, fail] = r.results;
    expect(ask).toMatchObject({ status: 'partial', followUps: ['Which year do you mean?'] });
    expect(ask!.errors.join(' ')).toContain('asks for input');
    expect(fail).toMatchObject({ status: 'failure', failureReason: 'agent_error', metrics: { attempts: 1 } });
    expect(fail!.errors[0]).toContain('the upstream index is down');
  });

  it('with allowQuestions, asks the remote question in the inbox and sends the answer on the same remote task, which completes', async () => {
    const { jobId, handle } = await start({
      pattern: 'fanout',
      tasks: [{ id: 'ask', question: 'ask me about the year', agent: 'remote-a2a', allowQuestions: true }],
    });
    const record = await testRecord();
    let item: InboxItem | undefined;
    await pollUntil(
      async () => (item = (await record.inbox.list(tenant, { jobId, state: 'pending', labels: {} }))[0]) !== undefined,
      () => 'the remote question never reached the inbox',
      30_000,
    );
    expect(item).toMatchObject({ kind: 'question', detail: { question: 'Which year do you mean?' } });
    await (
      await testClient()
    ).workflow
      .getHandle(item!.workflowId)
      .executeUpdate(decideUpdate, { args: [{ id: item!.id, state: 'answered', answer: '1969', by: 'test', at: Date.now() }] });
    const r = await handle.result();
    expect(r.results[0], JSON.stringify(r.results[0])).toMatchObject({ status: 'success', data: { year: '1969' } });
    const first = received.find((m) => m.question === 'ask me about the year')!;
    const answer = received.find((m) => m.question === '1969')!;
    expect(answer).toMatchObject({ taskId: first.taskId, contextId: first.contextId, messageId: `delegate:job/${tenant}/${jobId}/ask#1` });
  });

  it('retries a refused send with the same message id, so the remote starts one task', async () => {
    const r = await run(one('remote-a2a', 'flaky but fine'));
    expect(r.results[0]).toMatchObject({ status: 'success', metrics: { attempts: 2 } });
    const tries = received.filter((m) => m.question.startsWith('flaky'));
    expect(tries).toHaveLength(2);
    expect(new Set(tries.map((m) => m.messageId)).size).toBe(1);
    expect(tries.filter((m) => m.taskId).length).toBe(1);
  });

  it('sends CancelTask to the remote agent when the job is cancelled', async () => {
    const { jobId, handle } = await start(one('remote-a2a', `hang until cancelled ${Date.now()}`));
    await pollUntil(async () => received.some((m) => m.messageId.includes(jobId)), 'the remote got the message');
    const remoteTask = received.find((m) => m.messageId.includes(jobId))!.taskId;
    await handle.cancel();
    await pollUntil(async () => cancels.includes(remoteTask), 'the remote got CancelTask', 20_000);
  });

  it('refuses a card behind a refused address or without the skill: final failures, no retry', async () => {
    const r = await run({
      pattern: 'fanout',
      tasks: [
        { id: 'guarded', question: 'complete', agent: 'guarded-a2a' },
        { id: 'skill', question: 'complete', agent: 'wrong-skill-a2a' },
      ],
    });
    expect(r.results[0]).toMatchObject({ status: 'failure', metrics: { attempts: 1 } });
    expect(r.results[0]!.errors[0]).toContain('a loopback address');
    expect(r.results[1]).toMatchObject({ status: 'failure', metrics: { attempts: 1 } });
    expect(r.results[1]!.errors[0]).toContain('no skill "translate"');
  });
});
