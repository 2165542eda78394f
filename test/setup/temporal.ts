/**
 * Global setup: a real Temporal dev server on free ports (never the one `npm start`
 * uses), one worker with the workflows bundled once per run, both stopped at the end.
 */
import { NativeConnection, Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { loadRegistry, scoutRootsOf } from '../../activities';
import { openRecord } from '../../record';
import { DELETION_TEST_SETTINGS, DEV_THROUGHPUT_SETTINGS, freePort, startDevServer } from '../../scripts/dev-server';
import { startExampleAgent } from '../../scripts/example-agent';
import { startFakeLlm } from '../../scripts/fake-llm';
import { loadConfig } from '../../config/config';
import { loadTenants } from '../../config/tenants';
import { agentQueueFor } from '../../core/names';
import { bundleWorkflows, createWorkers } from '../../workers/worker';
import { writeKeysFile } from '../tenants';
import { fileLogger, logFileFor } from './sdk-log';
import { TEST_WEBHOOK_SECRET } from '../webhook-secret';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    taskQueue: string;
    agentsFile: string;
    keysFile: string;
    recordFile: string;
    fakeLlmUrl: string;
    /** The shared worker's workflow bundle (untraced), for the workers a test file starts itself. */
    workflowBundleFile: string;
    /** A folder of the run's, deleted at its end: what test files build once (compiled entries). */
    runDir: string;
  }
}

/** The test deployment's skills and roles: one reviewer with two skills (one read from a file) and three task types. */
const ROLES = {
  skills: [
    { id: 'review-checklist', title: 'Review checklist', text: 'Check the subject, the evidence, and the risks; at most four findings.' },
    { id: 'house-style', title: 'House style', path: 'house-style.md' },
  ],
  roles: [
    {
      id: 'review',
      persona: 'You are a meticulous reviewer.',
      agent: 'role-player',
      requiredSkills: ['review-checklist', 'house-style'],
      tools: ['search'],
      outputKinds: { code_review: ['review'], design_review: ['review', 'report'], risk_scan: ['report'] },
      maxOutputTokens: 300,
      maxDepth: 0,
    },
    {
      id: 'review-claude',
      persona: 'You are a meticulous reviewer.',
      agent: 'claude-role-player',
      requiredSkills: ['review-checklist', 'house-style'],
      tools: ['search'],
      outputKinds: { code_review: ['review'] },
      maxOutputTokens: 300,
      maxDepth: 0,
    },
  ],
};

/** Pricing of the agents on the SDK's other providers: cached input at a tenth. */
const CACHED_PRICING = { inputPerMTok: 1000, outputPerMTok: 2000, cachedInputPerMTok: 100 };

export default async function setup(project: TestProject) {
  // the shared worker's SDK lines go to this run's log folder (test/setup/sdk-log.ts), its errors to the console too
  const sharedLog = logFileFor('shared-worker');
  Runtime.install({
    logger: fileLogger(sharedLog, 'INFO', (e) => {
      if (e.level === 'ERROR') console.error(`shared test worker: ${e.message} (${sharedLog})`);
    }),
    telemetryOptions: { logging: { forward: {}, filter: makeTelemetryFilterString({ core: 'ERROR' }) } },
  });
  // the scout reads only a configured root: the test worker's is the repository (as the project's env sets it)
  process.env.DELEGATE_SCOUT_ROOT ??= process.cwd();
  const scoutRoots = scoutRootsOf({ DELEGATE_SCOUT_ROOT: process.env.DELEGATE_SCOUT_ROOT });
  const dir = mkdtempSync(join(tmpdir(), 'delegate-test-'));
  const server = await startDevServer({
    dbFile: join(dir, 'temporal.sqlite'),
    port: await freePort(),
    headless: true,
    logFile: join(dir, 'server.log'),
    settings: { ...DEV_THROUGHPUT_SETTINGS, ...DELETION_TEST_SETTINGS },
  });
  const taskQueue = `delegate-test-${process.pid}`;
  // a real HTTP agent on loopback, registered through an agents file like an operator would
  const agent = await startExampleAgent();
  // and a fake LLM provider speaking the chat-completions protocol (no provider is reachable here)
  const llm = await startFakeLlm();
  const llmAgent = (id: string, model: string) => ({
    kind: 'llm',
    id,
    baseUrl: `${llm.url}/v1`,
    model,
    apiKey: '${DELEGATE_TEST_LLM_KEY}',
    capabilities: ['research'],
    pricing: { inputPerMTok: 1000, outputPerMTok: 2000 },
    maxTokensPerStep: 500,
    timeoutSeconds: 10,
    tools: [
      {
        name: 'search',
        description: 'web search',
        parameters: { type: 'object', properties: { query: { type: 'string' } } },
        url: `${llm.url}/tools/search`,
      },
    ],
  });
  const agentsFile = join(dir, 'agents.json');
  const http = (id: string, path: string, extra: object = {}) => ({ id, url: `${agent.url}${path}`, timeoutSeconds: 5, ...extra });
  writeFileSync(
    agentsFile,
    JSON.stringify({
      agents: [
        http('wordcount', '/wordcount', {
          description: 'Counts the words of the question',
          capabilities: ['count'],
          inputSchema: { type: 'object', additionalProperties: false },
          headers: { 'x-token': '${DELEGATE_TEST_TOKEN}' },
        }),
        http('flaky-http', '/flaky', {
          retry: { maxAttempts: 3, initialIntervalSeconds: 0.1, backoffCoefficient: 1, maximumIntervalSeconds: 0.2 },
        }),
        http('broken-http', '/broken', {
          retry: { maxAttempts: 2, initialIntervalSeconds: 0.1, backoffCoefficient: 1, maximumIntervalSeconds: 0.2 },
        }),
        http('forbidden-http', '/forbidden'),
        // its own id: the circuit test opens this agent's circuit on the shared worker
        http('down-http', '/forbidden'),
        http('bulky-http', '/bulky'),
        llmAgent('researcher', 'scripted'),
        llmAgent('rogue-llm', 'rogue'),
        // the judge of free-text stop conditions (DELEGATE_JUDGE_AGENT of the shared worker)
        { ...llmAgent('judge', 'judge'), description: 'Decides rubrics', capabilities: ['judge'], tools: [] },
        // plays the specialist roles below (a job's model picks the script: role, role-skip, …)
        { ...llmAgent('role-player', 'role'), description: 'Plays specialist roles', capabilities: [] },
        // the same fake through the AI SDK's other providers (no capability: routing tests do not see them)
        { ...llmAgent('claude-researcher', 'scripted'), provider: 'anthropic', capabilities: [], pricing: CACHED_PRICING },
        { ...llmAgent('openai-researcher', 'scripted'), provider: 'openai', capabilities: [], pricing: CACHED_PRICING },
        { ...llmAgent('gemini-researcher', 'scripted'), provider: 'google', capabilities: [], pricing: CACHED_PRICING },
        { ...llmAgent('quiet-researcher', 'scripted'), capabilities: [], streamEvents: false },
        { ...llmAgent('claude-role-player', 'role'), provider: 'anthropic', capabilities: [], pricing: CACHED_PRICING },
      ],
      ...ROLES,
    }),
  );
  writeFileSync(join(dir, 'house-style.md'), 'Findings are short; each names its evidence.\n');
  const keysFile = writeKeysFile(join(dir, 'keys.json'));
  // the job record the shared worker archives into and every test's API reads (SQLite, WAL: shared by processes)
  const recordFile = join(dir, 'record.db');
  const record = await openRecord({ sqliteFile: recordFile });
  const connection = await NativeConnection.connect({ address: server.address });
  const registry = loadRegistry(agentsFile, undefined, undefined, scoutRoots);
  // webhook receivers in tests listen on loopback
  const webhook = { policy: { allowLoopback: true } };
  // one agent lane per test tenant, as workers/main.ts serves them
  const tenants = loadTenants(loadConfig({ DELEGATE_API_KEYS_FILE: keysFile }));
  // bundled once per run: a test file's own workers load this file instead of bundling again (seconds of CPU each)
  const workflowBundle = await bundleWorkflows();
  const workflowBundleFile = join(dir, 'workflow-bundle.js');
  writeFileSync(workflowBundleFile, workflowBundle.code);
  const workers = await createWorkers(
    {
      connection,
      namespace: 'default',
      taskQueue,
      workflowBundle,
      webhookSecret: TEST_WEBHOOK_SECRET,
      webhook,
      registry,
      scoutRoots,
      record: record.store,
      judgeAgent: 'judge',
    },
    tenants.list().map((t) => ({ taskQueue: agentQueueFor(taskQueue, t.tenant), slots: t.quotas.agentSlots })),
  );
  const running = Promise.all(workers.map((w) => w.run()));
  project.provide('temporalAddress', server.address);
  project.provide('taskQueue', taskQueue);
  project.provide('agentsFile', agentsFile);
  project.provide('keysFile', keysFile);
  project.provide('recordFile', recordFile);
  project.provide('fakeLlmUrl', llm.url);
  project.provide('workflowBundleFile', workflowBundleFile);
  project.provide('runDir', dir);
  return async () => {
    for (const w of workers) w.shutdown();
    await running.catch((err) => console.error('worker ended with', err));
    await connection.close();
    await record.close();
    await server.stop();
    agent.server.close();
    llm.server.close();
    rmSync(dir, { recursive: true, force: true });
  };
}
