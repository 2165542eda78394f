/**
 * An LLM agent using MCP servers as tools, end to end: jobs through the API, a worker of this
 * file's own (its MCP pool allows loopback, as tests need), the fake provider's "toolplan"
 * model asking for tools, and two servers built with the official SDK (test/fixtures/mcp): one
 * the worker starts over stdio, one over streamable HTTP on loopback. Each has a tool the
 * tasks' scope allows (`lookup`) and one it does not (`wipe`). A role played by an LLM agent
 * with an MCP server uses its tools too: those of its allowlist (a role task's scope), and no other.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createMcpPool, loadRegistry, type McpPool } from '../../activities';
import { buildApp } from '../../api/app';
import { loadTenants } from '../../config/tenants';
import type { JobResult } from '../../schemas';
import { startDedicatedWorker } from '../dedicated-worker';
import { startTestMcpHttp, type TestMcpHttp } from '../fixtures/mcp/servers';
import { submitFanout, testClient, testConfig, testRecord, uniqueId } from '../helpers';
import { authHeader } from '../tenants';

const dir = mkdtempSync(join(tmpdir(), 'delegate-mcp-'));
const callsFile = join(dir, 'stdio-calls.txt');
/** The fake provider's model for this file: "#tag" finds its requests. */
const model = `toolplan#${uniqueId('mcp')}`;
/** The role player's model: the fake's "role" script, which calls the first role tool it is offered. */
const roleModel = `role#${uniqueId('mcp-role')}`;
let http: TestMcpHttp;
let pool: McpPool;
let worker: Awaited<ReturnType<typeof startDedicatedWorker>>;
let app: FastifyInstance;

const llm = (id: string, mcpServers: object[]) => ({
  kind: 'llm',
  id,
  baseUrl: `${inject('fakeLlmUrl')}/v1`,
  model,
  pricing: { inputPerMTok: 1000, outputPerMTok: 2000 },
  timeoutSeconds: 20,
  retry: { maxAttempts: 2, initialIntervalSeconds: 0.1, backoffCoefficient: 1, maximumIntervalSeconds: 0.1 },
  mcpServers,
});

beforeAll(async () => {
  http = await startTestMcpHttp();
  process.env.DELEGATE_TEST_MCP_CALLS = callsFile;
  const agentsFile = join(dir, 'agents.json');
  writeFileSync(
    agentsFile,
    JSON.stringify({
      agents: [
        llm('mcp-researcher', [
          {
            id: 'files',
            stdio: {
              command: process.execPath,
              args: ['--import', 'tsx', 'test/fixtures/mcp/stdio-server.ts'],
              env: { MCP_CALLS_FILE: '${DELEGATE_TEST_MCP_CALLS}' },
            },
          },
          { id: 'web', http: { url: http.url, headers: { 'x-team': 'research' } } },
        ]),
        llm('mcp-intranet', [{ id: 'intranet', http: { url: 'http://10.255.255.1:8080/mcp' } }]),
        { ...llm('mcp-role-player', [{ id: 'web', http: { url: http.url, headers: { 'x-team': 'research' } } }]), model: roleModel },
      ],
      roles: [
        {
          id: 'mcp-analyst',
          persona: 'You are a careful analyst.',
          agent: 'mcp-role-player',
          tools: ['web.lookup'],
          outputKinds: { research: ['report'] },
          maxOutputTokens: 300,
          maxDepth: 0,
        },
      ],
    }),
  );
  pool = createMcpPool({ policy: { allowLoopback: true } });
  const registry = loadRegistry(agentsFile, undefined, pool);
  worker = await startDedicatedWorker({ registry, lanes: ['default'] });
  const config = testConfig({ DELEGATE_TASK_QUEUE: worker.taskQueue });
  app = await buildApp({ config, client: await testClient(), registry, tenants: loadTenants(config), record: await testRecord() });
});

afterAll(async () => {
  await app?.close();
  await worker?.stop();
  await pool?.close();
  await http?.close();
});

async function run(tasks: object[]): Promise<{ jobId: string; result: JobResult; ms: number }> {
  const began = performance.now();
  const { jobId, result } = await submitFanout(app, 'mcp', tasks);
  return { jobId, result, ms: performance.now() - began };
}

const stdioLines = () => readFileSync(callsFile, 'utf8').trim().split('\n');
const both = ['files.lookup', 'web.lookup'];

describe('an LLM agent with MCP servers as tools', () => {
  it('offers the in-scope tools of both servers, runs each call itself, and the answers reach the next turn and the result', async () => {
    const { jobId, result, ms } = await run([
      { id: 't', question: 'define durable plan: files__lookup web__lookup', agent: 'mcp-researcher', scope: both },
    ]);
    const t = result.results[0];
    expect(t, JSON.stringify(t.errors)).toMatchObject({
      status: 'success',
      data: { answer: ['definition of durable (stdio-tools)', 'definition of durable (http-tools)'] },
      metrics: { steps: 3, toolCalls: 2 },
    });
    expect(t.metrics.channelsHit).toEqual(expect.arrayContaining(both));
    // the model was offered exactly the two tools in scope (no wipe), and read each answer on its next turn
    const captured = (await (await fetch(`${inject('fakeLlmUrl')}/v1/_captured?model=${encodeURIComponent(model)}`)).json()) as {
      body: string;
    }[];
    const bodies = captured.map(
      (c) => JSON.parse(c.body) as { tools?: { function: { name: string } }[]; messages: { role: string; content: string }[] },
    );
    const mine = bodies.filter((b) => b.messages[1]?.content.includes('files__lookup web__lookup'));
    expect(mine).toHaveLength(3);
    expect(mine[0].tools?.map((x) => x.function.name).sort()).toEqual(['files__lookup', 'web__lookup']);
    expect(mine[1].messages.at(-1)).toMatchObject({ role: 'tool', content: 'definition of durable (stdio-tools)' });
    expect(mine[2].messages.at(-1)).toMatchObject({ role: 'tool', content: 'definition of durable (http-tools)' });
    // each tool step is a subtask.step event naming its tool and booking it
    const events = await (await testRecord()).events.after('default', jobId, 0);
    const steps = events
      .filter((e) => e.type === 'subtask.step')
      .map((e) => [e.data.tools, (e.data.usage as { toolCalls: number }).toolCalls]);
    expect(steps).toEqual([
      [['files.lookup'], 1],
      [['web.lookup'], 1],
      [undefined, 0],
    ]);
    console.log(`first MCP job (stdio server started, HTTP session opened): ${ms.toFixed(0)} ms for 3 steps`);
  });

  it('reuses the connections: a second job neither starts the stdio server again nor opens another HTTP session', async () => {
    const { result, ms } = await run([
      { id: 't', question: 'again plan: files__lookup web__lookup', agent: 'mcp-researcher', scope: both },
    ]);
    expect(result.results[0]).toMatchObject({ status: 'success', metrics: { toolCalls: 2 } });
    expect(stdioLines().filter((l) => l.startsWith('start '))).toHaveLength(1);
    expect(http.sessions).toBe(1);
    console.log(`second MCP job (pooled connections): ${ms.toFixed(0)} ms for 3 steps`);
  });

  it('denies a listed tool outside the scope, whatever the model asks: it never runs', async () => {
    const before = http.calls.length;
    const { result } = await run([
      { id: 's', question: 'clean up plan: files__lookup files__wipe', agent: 'mcp-researcher', scope: both },
      { id: 'h', question: 'clean up plan: web__wipe', agent: 'mcp-researcher', scope: both },
    ]);
    const [s, h] = result.results;
    // the first step's lookup ran: work so far is kept, the denial ends the task
    expect(s).toMatchObject({ status: 'partial', failureReason: 'tool_denied', metrics: { toolCalls: 1 } });
    expect(s.errors[0]).toContain('"files__wipe"');
    expect(h).toMatchObject({ status: 'failure', failureReason: 'tool_denied', metrics: { attempts: 1, toolCalls: 0 } });
    // the denied turn's tokens are booked: the provider charged for them
    expect(h.metrics.tokens).toBeGreaterThan(0);
    expect(stdioLines()).not.toContain('wipe');
    expect(http.calls.slice(before)).not.toContain('wipe');
  });

  it("books MCP calls on the budget's toolCalls axis: a cap of 1 halts after the first", async () => {
    const { result } = await run([
      { id: 't', question: 'capped plan: web__lookup files__lookup', agent: 'mcp-researcher', scope: both, budget: { toolCalls: 1 } },
    ]);
    expect(result.results[0]).toMatchObject({ failureReason: 'budget_exhausted', metrics: { steps: 1, toolCalls: 1 } });
  });

  it('refuses an HTTP MCP server at a private address by the address policy, without retrying', async () => {
    const { result } = await run([{ id: 't', question: 'plan: intranet__lookup', agent: 'mcp-intranet', scope: ['intranet.lookup'] }]);
    const t = result.results[0];
    expect(t).toMatchObject({ status: 'failure', failureReason: 'agent_error', metrics: { attempts: 1, toolCalls: 0 } });
    expect(t.errors[0]).toMatch(/MCP server "intranet" \(http\) refused by the MCP address policy: a private address/);
  });
});

describe('a role whose agent has an MCP server', () => {
  const bodies = async () =>
    ((await (await fetch(`${inject('fakeLlmUrl')}/v1/_captured?model=${encodeURIComponent(roleModel)}`)).json()) as { body: string }[]).map(
      (c) => JSON.parse(c.body) as { tools?: { function: { name: string } }[]; messages: { role: string; content: string }[] },
    );

  it('uses the MCP tool its allowlist names: offered, judged by the host, run on the pooled connection', async () => {
    const before = http.calls.length;
    const seen = (await bodies()).length;
    const { jobId, result } = await run([{ id: 'r', question: 'durable', role: 'mcp-analyst', taskType: 'research' }]);
    const t = result.results[0];
    expect(t, JSON.stringify(t.errors)).toMatchObject({ status: 'success', metrics: { toolCalls: 1 } });
    expect(t.role).toMatchObject({ bootstrapped: true, protocolErrors: [], outputKind: 'report' });
    expect((t.data as { result: { findings: { detail: string }[] } }).result.findings[0].detail).toBe('definition of durable (http-tools)');
    expect(http.calls.slice(before)).toEqual(['lookup']);
    // offered after the protocol tools, under its model name
    const mine = (await bodies()).slice(seen);
    expect(mine[0].tools?.map((x) => x.function.name)).toEqual(['delegation_bootstrap', 'load_skill', 'web__lookup']);
    // the step that ran it names it (by scope name) and books it
    const events = await (await testRecord()).events.after('default', jobId, 0);
    const ran = events.filter((e) => e.type === 'subtask.step' && (e.data.tools as string[] | undefined)?.length);
    expect(ran.map((e) => [e.data.tools, (e.data.usage as { toolCalls: number }).toolCalls])).toEqual([[['web.lookup'], 1]]);
  });

  it('offers no MCP tool outside its allowlist: a tool of the same server the role does not list is never offered', async () => {
    const seen = (await bodies()).length;
    const { result } = await run([{ id: 'r', question: 'durable', role: 'mcp-analyst', taskType: 'research' }]);
    expect(result.results[0]).toMatchObject({ status: 'success' });
    const names = (await bodies()).slice(seen).flatMap((b) => (b.tools ?? []).map((x) => x.function.name));
    expect(names).not.toContain('web__wipe');
  });

  it('denies a call to a tool of the server outside its allowlist, whatever the model asks: it never runs', async () => {
    const before = http.calls.length;
    // the role child runs on the job's model: the script that calls wipe
    const jobId = uniqueId('mcp-role-wipe');
    const model = `role-wipe#${jobId}`;
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: authHeader('default'),
      payload: { jobId, pattern: 'fanout', model, tasks: [{ id: 'r', question: 'durable', role: 'mcp-analyst', taskType: 'research' }] },
    });
    expect(res.statusCode, res.body).toBe(201);
    const got = await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}/result?waitSeconds=60`, headers: authHeader('default') });
    expect(got.statusCode, got.body).toBe(200);
    const result = got.json() as JobResult;
    const t = result.results[0];
    expect(t).toMatchObject({ status: 'failure', failureReason: 'tool_denied', metrics: { toolCalls: 0 } });
    expect(t.errors.join(' ')).toContain('"web__wipe"');
    expect(http.calls.slice(before)).toEqual([]);
  });
});
