/**
 * MCP Tasks (2025-11-25) with the SDK's own client: a task-augmented call of a delegation tool
 * answers its task at once; tasks/get reports the job's state, tasks/result relays status
 * notifications from the job's events and gives the tool's answer, tasks/cancel cancels the job;
 * another tenant's task is not found; a research subtask and a scout run as tasks too. Over
 * streamable HTTP (the in-process backend, stateless: every request a new server) and stdio
 * (the HTTP backend).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  RELATED_TASK_META_KEY,
  TaskStatusNotificationSchema,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { connectMcp, threeWay } from './connect';
import { useListeningApp, uniqueId } from '../helpers';
import { TEST_TENANTS } from '../tenants';

const listening = useListeningApp({}, null);

/** The delegation tools, the test agents file's roles' (`delegate_<role>`) among them. */
const TASK_TOOLS = [
  'delegate_fanout',
  'delegate_pipeline',
  'delegate_research_subtask',
  'delegate_review',
  'delegate_review-claude',
  'delegate_scout',
  'delegate_vote',
];

/** Starts `name` as a task; the task and how long the call took. */
async function startTask(client: Client, name: string, args: Record<string, unknown>): Promise<{ task: Task; ms: number }> {
  const began = Date.now();
  const res = await client.request({ method: 'tools/call', params: { name, arguments: args } }, CreateTaskResultSchema, {
    task: { ttl: 600_000 },
  });
  return { task: res.task, ms: Date.now() - began };
}

/** The JSON of a tool answer's first text block. */
const textOf = (res: { content: unknown[] }) => JSON.parse((res.content[0] as { text: string }).text) as Record<string, unknown>;

describe.each(['http', 'stdio'] as const)('MCP tasks over %s', (transport) => {
  it('lists the delegation tools as task-capable and keeps the others plain', async () => {
    const client = await connectMcp(listening.url, transport);
    expect(client.getServerCapabilities()?.tasks).toMatchObject({ cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = await client.listTools();
    const optional = tools.filter((t) => t.execution?.taskSupport === 'optional').map((t) => t.name);
    expect(optional.sort()).toEqual(TASK_TOOLS);
  });

  it('creates a fan-out task at once, reports it while it runs, relays its status, and gives its result', async () => {
    const client = await connectMcp(listening.url, transport);
    const statuses: Task[] = [];
    client.setNotificationHandler(TaskStatusNotificationSchema, (n) => {
      statuses.push(n.params);
    });
    const jobId = uniqueId(`mcpt-${transport}`);
    // "at once": the task comes back while the job still runs (no wall-clock bound: the suite runs loaded too)
    const { task } = await startTask(client, 'delegate_fanout', threeWay(jobId));
    expect(task).toMatchObject({ taskId: `job:${jobId}`, status: 'working', ttl: null, pollInterval: 1000 });

    const polled = await client.experimental.tasks.getTask(task.taskId);
    expect(polled).toMatchObject({ taskId: task.taskId, status: 'working' });
    expect(polled.statusMessage).toMatch(/^\d of 3 subtasks finished$/);

    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(textOf(result)).toMatchObject({ jobId, status: 'success', result: { output: { a: { a: 'A' }, b: { b: 'B' }, c: { c: 'C' } } } });
    expect(result._meta?.[RELATED_TASK_META_KEY]).toEqual({ taskId: task.taskId });
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'completed', statusMessage: 'job success' });
    // status notifications came from the job's events, the last one the job's end
    expect(statuses.length).toBeGreaterThanOrEqual(2);
    expect(statuses.every((s) => s.taskId === task.taskId)).toBe(true);
    expect(statuses.at(-1)).toMatchObject({ status: 'completed' });
    // the task is the job: REST sees it under the same id
    const view = await listening.app.inject({
      method: 'GET',
      url: `/v1/jobs/${jobId}`,
      headers: { authorization: `Bearer ${TEST_TENANTS.default.key}` },
    });
    expect(view.json()).toMatchObject({ jobId, status: 'success' });
  });

  it('cancels the job with tasks/cancel; a finished task cannot be cancelled again', async () => {
    const client = await connectMcp(listening.url, transport);
    const jobId = uniqueId(`mcpc-${transport}`);
    const slow = { jobId, tasks: [{ id: 's', question: 'slow', agent: 'sim', params: { steps: 1000, latencyMs: 20 } }] };
    const { task } = await startTask(client, 'delegate_vote', { ...slow, vote: { strategy: 'majority' } });
    expect(task.status).toBe('working');
    const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled).toMatchObject({ taskId: task.taskId, status: 'cancelled' });
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'cancelled' });
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(textOf(result)).toMatchObject({ jobId, status: 'cancelled' });
    await expect(client.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(/terminal status: cancelled/);
  });

  it("does not find another tenant's task, nor an id it never made", async () => {
    const alpha = await connectMcp(listening.url, transport, TEST_TENANTS.alpha.key);
    const beta = await connectMcp(listening.url, transport, TEST_TENANTS.beta.key);
    const jobId = uniqueId(`mcpx-${transport}`);
    const { task } = await startTask(alpha, 'delegate_pipeline', { jobId, tasks: [{ id: 'a', question: 'A?', agent: 'echo' }] });
    await expect(beta.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/not found/i);
    await expect(beta.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).rejects.toThrow(/not found/i);
    await expect(beta.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(/not found/i);
    await expect(alpha.experimental.tasks.getTask('made-up')).rejects.toThrow(/not found/i);
    // the owner still reads it
    const result = await alpha.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(textOf(result)).toMatchObject({ jobId, status: 'success' });
  });

  it('answers a refused input with a task failed at once, the refusal as its message', async () => {
    const client = await connectMcp(listening.url, transport);
    const dup = [
      { id: 'a', question: 'x', agent: 'echo' },
      { id: 'a', question: 'y', agent: 'echo' },
    ];
    const { task } = await startTask(client, 'delegate_fanout', { tasks: dup });
    expect(task).toMatchObject({ status: 'failed', ttl: 0 });
    expect(task.statusMessage).toMatch(/^Invalid job spec:\n {2}tasks/);
    await expect(client.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/not found/i);
  });
});

describe('MCP tasks of the contract tools', () => {
  it('runs a research subtask and a scout as tasks', async () => {
    const client = await connectMcp(listening.url, 'http');
    const id = uniqueId('mcprs');
    const research = await startTask(client, 'delegate_research_subtask', {
      id,
      question: 'Which PostgreSQL extensions speed up analytics?',
      budget: { latency_seconds: 60, cost_usd: 1, tool_calls: 20 },
      agent: 'sim',
      params: { summary: 'Citus helps. It stores columns.', latencyMs: 300 },
    });
    expect(research.task.taskId).toMatch(/^research:/);
    const out = textOf(await client.experimental.tasks.getTaskResult(research.task.taskId, CallToolResultSchema));
    expect(out).toMatchObject({ id, status: 'success', summary: 'Citus helps. It stores columns.' });

    const scout = await startTask(client, 'delegate_scout', {
      question: 'where is `computeBackoff` defined',
      scopePaths: ['test/fixtures/scout-tree'],
      parentAgent: 'mcp-test',
      parentSessionId: uniqueId('sess'),
      parentSessionExcerpt: 'The parent is changing the retry policy of the client and needs to know where the backoff is computed.',
    });
    expect(scout.task.taskId).toMatch(/^scout:/);
    const report = textOf(await client.experimental.tasks.getTaskResult(scout.task.taskId, CallToolResultSchema));
    expect(report).toMatchObject({ id: scout.task.taskId.slice('scout:'.length), parent_agent: 'mcp-test' });
    expect(await client.experimental.tasks.getTask(scout.task.taskId)).toMatchObject({ status: 'completed' });
  });
});
