/**
 * Cost across A2A, through the API. As a client: a loopback A2A agent (the SDK's own server)
 * receives the subtask's remaining budget in the message metadata, and the spend it reports in
 * the task's metadata is what the job books. As a server: Delegate reports each task's spend in the
 * task metadata, read with the SDK's client; its card declares the extension; a budget a caller
 * passes caps the job's.
 */
import { Role, TaskState, type Message, type Task } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor } from '@a2a-js/sdk/server';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2aAgent } from '../../activities/agents/a2a';
import { builtinAgents, createAgentRegistry } from '../../activities/agents/registry';
import { COST_EXTENSION_URI } from '../../activities/a2a-cost';
import type { JobResult } from '../../schemas';
import { startDedicatedWorker } from '../dedicated-worker';
import { fastRetry, finalResult, listeningApp, testApp, testClient, uniqueId } from '../helpers';
import { authHeader } from '../tenants';
import { a2aMessage } from '../a2a-fixtures';
import { a2aCard, answerArtifact, dataPart, startA2aRemote, statusUpdate, textPart, type A2aRemote } from '../a2a-remote';

/** The metadata each message reached the remote with. */
const seen: Record<string, unknown>[] = [];
/** What the remote reports its tasks cost. */
const REPORT = {
  'gen_ai.usage.cost.amount': 0.0123,
  'gen_ai.usage.cost.currency': 'USD',
  'gen_ai.usage.input_tokens': 1200,
  'gen_ai.usage.output_tokens': 340,
};

/** The remote: answers, and reports its spend in the completed status update's metadata (streaming) and the task's (blocking). */
const executor: AgentExecutor = {
  async execute(ctx, bus) {
    seen.push(ctx.userMessage.metadata ?? {});
    const { taskId, contextId } = ctx;
    const metadata = { [COST_EXTENSION_URI]: REPORT };
    const task: Task = {
      id: taskId,
      contextId,
      status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: new Date().toISOString() },
      artifacts: [],
      history: [ctx.userMessage],
      metadata,
    };
    bus.publish(AgentEvent.task(task));
    bus.publish(answerArtifact(taskId, contextId, [textPart('42')]));
    bus.publish(statusUpdate(taskId, contextId, TaskState.TASK_STATE_COMPLETED, undefined, metadata));
    bus.finished();
  },
  async cancelTask() {},
};

let remote: A2aRemote;
let worker: Awaited<ReturnType<typeof startDedicatedWorker>>;
let app: FastifyInstance;

const cardOf = (streaming: boolean) => (base: string) => a2aCard(base, streaming, { description: 'reports its cost' });

beforeAll(async () => {
  remote = await startA2aRemote(executor, { '/streaming': cardOf(true), '/blocking': cardOf(false) });
  const agent = (id: string, path: string) =>
    createA2aAgent(
      { kind: 'a2a', id, cardUrl: `${remote.base}/${path}/.well-known/agent-card.json`, retry: fastRetry, pricing: { perTaskUsd: 0.01 } },
      { policy: { allowLoopback: true } },
    );
  const registry = createAgentRegistry([...builtinAgents, agent('costly-a2a', 'streaming'), agent('costly-blocking-a2a', 'blocking')]);
  worker = await startDedicatedWorker({ registry, lanes: ['default'] });
  app = await testApp({ DELEGATE_TASK_QUEUE: worker.taskQueue }, 'default', undefined, registry);
});

afterAll(async () => {
  await app?.close();
  await worker?.stop();
  await remote?.close();
});

describe('Delegate calling an A2A agent', () => {
  for (const agent of ['costly-a2a', 'costly-blocking-a2a']) {
    it(`passes the remaining budget in the message metadata and books the cost the agent reports (${agent})`, async () => {
      const jobId = uniqueId('a2a-cost');
      const before = seen.length;
      const res = await app.inject({
        method: 'POST',
        url: '/v1/jobs',
        payload: {
          jobId,
          pattern: 'fanout',
          budget: { costUsd: 0.5, tokens: 10_000 },
          tasks: [{ id: 'a', question: 'what is it?', agent }],
        },
      });
      expect(res.statusCode, res.body).toBe(201);
      const done = await finalResult(app, jobId);
      const result = done.json() as JobResult;
      expect(result.status).toBe('success');

      const got = seen.slice(before);
      expect(got).toHaveLength(1);
      const budget = got[0]![COST_EXTENSION_URI] as Record<string, unknown>;
      expect(budget['gen_ai.agent.cost_budget.currency']).toBe('USD');
      expect(budget['gen_ai.agent.cost_budget.limit']).toBeGreaterThan(0);
      expect(budget['gen_ai.agent.cost_budget.limit']).toBeLessThanOrEqual(0.5);
      expect(budget['gen_ai.agent.token_budget.limit']).toBeGreaterThan(0);
      expect(budget['gen_ai.agent.token_budget.limit']).toBeLessThanOrEqual(10_000);

      // the reported spend, not the configured price of a task (0.01)
      const t = result.results[0]!;
      expect(t.metrics.costUsd).toBeCloseTo(0.0123, 9);
      expect(t.metrics.tokens).toBe(1540);
      expect(result.metrics.costUsd).toBeCloseTo(0.0123, 9);
    });
  }
});

describe('Delegate as an A2A server', () => {
  let url: string;
  let server: FastifyInstance;
  beforeAll(async () => {
    ({ app: server, url } = await listeningApp({}, null));
  });
  afterAll(async () => {
    await server?.close();
  });

  const client = () => {
    const fetchImpl = ((input: string | URL | Request, init: RequestInit = {}) =>
      fetch(input, {
        ...init,
        headers: { ...Object.fromEntries(new Headers(init.headers).entries()), ...authHeader('default') },
      })) as typeof fetch;
    return new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }).createFromUrl(url);
  };
  const send = (m: Message) => ({ tenant: '', message: m, configuration: undefined, metadata: undefined });

  it('declares the cost extension in its card', async () => {
    const card = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as { capabilities: { extensions: { uri: string }[] } };
    expect(card.capabilities.extensions).toEqual([expect.objectContaining({ uri: COST_EXTENSION_URI })]);
  });

  it("reports each task's spend in the task metadata under the extension's URI, and caps the job by the caller's budget", async () => {
    const id = uniqueId('a2a-spend');
    const spec = {
      pattern: 'fanout',
      budget: { costUsd: 5 },
      tasks: [{ id: 'a', question: 'spend', agent: 'sim', params: { costUsd: 0.02, tokens: 30, steps: 2 } }],
    };
    const m: Message = {
      ...a2aMessage(id, [dataPart(spec)]),
      role: Role.ROLE_USER,
      metadata: { [COST_EXTENSION_URI]: { 'gen_ai.agent.cost_budget.limit': 0.75, 'gen_ai.agent.cost_budget.currency': 'USD' } },
    };
    const task = (await (await client()).sendMessage(send(m))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const spend = task.metadata?.[COST_EXTENSION_URI] as Record<string, unknown>;
    expect(spend).toMatchObject({
      'gen_ai.usage.cost.currency': 'USD',
      'gen_ai.usage.cost.source': 'local',
      'delegate.usage.tool_calls': 0,
    });
    expect(spend['gen_ai.usage.cost.amount']).toBeCloseTo(0.04, 9);
    // GetTask reads the same from the record
    const again = await (await client()).getTask({ tenant: '', id: task.id });
    expect((again.metadata?.[COST_EXTENSION_URI] as Record<string, unknown>)['gen_ai.usage.cost.amount']).toBeCloseTo(0.04, 9);
    // the job ran under the lower of its own budget and the caller's
    const history = await (await testClient()).workflow.getHandle(`job/default/${task.id}`).fetchHistory();
    const input = JSON.parse(
      Buffer.from(history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!.data!).toString('utf8'),
    ) as { spec: { budget: { costUsd: number } } };
    expect(input.spec.budget.costUsd).toBe(0.75);
  });
});
