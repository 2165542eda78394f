/**
 * The A2A guide's plain-text example ("Which vector databases support hybrid search?"), run as
 * written (the TypeScript block of docs/guides/a2a.md, with tsx) against deployments WITHOUT
 * DELEGATE_RESEARCH_DEFAULT_AGENT: one whose agents include one of capability "research" (the
 * question runs there), and one with the builtin agents only (refused, saying what to configure,
 * at no field the message has).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { builtinAgents, createAgentRegistry, loadRegistry, type AgentRegistry } from '../../activities';
import type { JobResult } from '../../schemas';
import { codeBlocks, ROOT } from '../docs/blocks';
import { listeningApp } from '../helpers';
import { authHeader, TEST_TENANTS, type TestTenant } from '../tenants';

const GUIDE = 'docs/guides/a2a.md';
const QUESTION = 'Which vector databases support hybrid search?';
/** The guide's example: its one TypeScript block that sends the question. */
const example = codeBlocks(GUIDE).find((b) => b.lang === 'ts' && b.code.includes(QUESTION));
/** The example's messageId: the A2A task id, so the job id (each deployment's run is another tenant's). */
const MESSAGE_ID = 'question-1';

const apps: FastifyInstance[] = [];
afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
});

/** An API over `registry`, listening, with no DELEGATE_RESEARCH_DEFAULT_AGENT; its URL. */
async function deployment(registry: AgentRegistry): Promise<string> {
  const { app, url } = await listeningApp({ DELEGATE_RESEARCH_DEFAULT_AGENT: undefined }, null, undefined, registry);
  apps.push(app);
  expect(app.config.DELEGATE_RESEARCH_DEFAULT_AGENT).toBeUndefined();
  return url;
}

/** The run's agents file with one agent of capability "research" (the shared worker runs it): routing has one to pick. */
function oneResearchAgent(): AgentRegistry {
  const file = JSON.parse(readFileSync(inject('agentsFile'), 'utf8')) as { agents: { id: string; capabilities?: string[] }[] };
  const agents = file.agents.filter((a) => a.id === 'researcher' || !a.capabilities?.includes('research'));
  const path = join(inject('runDir'), 'agents-one-researcher.json');
  writeFileSync(path, JSON.stringify({ ...file, agents }));
  return loadRegistry(path);
}

/** Runs the guide's block as a reader would (tsx, DELEGATE_URL and DELEGATE_KEY set); its stdout. */
async function runExample(url: string, tenant: TestTenant): Promise<string> {
  const dir = join(ROOT, 'test-results', 'docs-run');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `a2a-text-example-${tenant}.ts`);
  writeFileSync(file, `${example!.code}\nexport {};\n`);
  const env = { ...process.env, DELEGATE_URL: url, DELEGATE_KEY: TEST_TENANTS[tenant].key };
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', file], { cwd: ROOT, env, timeout: 120_000 });
  return stdout;
}

describe("the A2A guide's text example, without DELEGATE_RESEARCH_DEFAULT_AGENT", () => {
  it('is in the guide', () => {
    expect(example?.code).toContain(`messageId: '${MESSAGE_ID}'`);
  });

  it('runs on the agent of capability "research" and completes', async () => {
    const url = await deployment(oneResearchAgent());
    const out = await runExample(url, 'alpha');
    expect(out).not.toContain('TASK_STATE_REJECTED');
    expect(out.trim().split('\n').at(-1)).toMatch(/^TASK_STATE_COMPLETED/);
    const res = await apps[0]!.inject({ url: `/v1/jobs/${MESSAGE_ID}/result`, headers: authHeader('alpha') });
    expect(res.statusCode, res.body).toBe(200);
    const task = (res.json() as JobResult).results[0]!;
    // no agent passes the semantic bar for it: the one agent of capability "research" takes it
    expect(task).toMatchObject({
      status: 'success',
      agentId: 'researcher',
      routing: { agent: 'researcher', reason: 'only agent with capability research' },
    });
  }, 150_000);

  it('is refused when no agent can take it, saying what to configure and naming no field', async () => {
    // echo shares no word with the question, the scout needs params.paths, neither has "research" (sim is left
    // out: its params' words pass the semantic bar for this question, so it would take it)
    const url = await deployment(createAgentRegistry(builtinAgents.filter((d) => d.manifest.id !== 'sim')));
    const out = await runExample(url, 'beta');
    expect(out.trim()).toBe(
      'TASK_STATE_REJECTED no agent of this deployment can take the question: the operator sets DELEGATE_RESEARCH_DEFAULT_AGENT, or gives an agent the capability "research" in the agents file',
    );
    expect(out).not.toContain('data.agent');
  }, 150_000);
});
