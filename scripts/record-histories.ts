/**
 * Records the replay test's fixtures: `npm run histories:record [scenario…]`.
 *
 * Starts its own dev server and worker on free ports, runs every scenario of
 * history-scenarios.ts (or the named ones), and writes each scenario's workflow runs to
 * test/fixtures/histories/<scenario>.json.gz; the fan-out's root is also exported with the
 * Temporal CLI (fanout.cli.json.gz) so the CLI's JSON form is replayed too. Run it after an
 * intended change that is behind `patched()`, and keep the old fixtures (rename them
 * `<scenario>.<date>.json.gz`): those are the histories still running in production.
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { loadRegistry } from '../activities';
import { openRecord } from '../record';
import { startFakeLlm } from './fake-llm';
import { bundleWorkflows, createWorker } from '../workers/worker';
import { freePort, startDevServer } from './dev-server';
import { encodeFixture, historyToProtoJson, type RecordedRun } from './history-json';
import { scenarioAgents, SCENARIOS, type ScenarioContext } from './history-scenarios';
import { ensureTemporalCli } from './temporal-cli';

/** Where the fixtures live. */
export const FIXTURES_DIR = fileURLToPath(new URL('../test/fixtures/histories/', import.meta.url));

const rootOf = (name: string) => `job/rec/${name}`;

async function collectRuns(client: Client, root: string, keep: (wf: string, root: string) => boolean): Promise<RecordedRun[]> {
  const runs: RecordedRun[] = [];
  for await (const wf of client.workflow.list()) {
    if (wf.workflowId !== root && !wf.workflowId.startsWith(`${root}/`)) continue;
    if (!keep(wf.workflowId, root)) continue;
    const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
    runs.push({ workflowId: wf.workflowId, runId: wf.runId, workflowType: wf.type, history: historyToProtoJson(history) });
  }
  // stable order: by workflow id, then by start (the first event's time) within a continue-as-new chain
  const started = (r: RecordedRun) => (r.history as { events: { eventTime: string }[] }).events[0].eventTime;
  return runs.sort((a, b) => a.workflowId.localeCompare(b.workflowId) || started(a).localeCompare(started(b)));
}

async function main(only: string[]): Promise<void> {
  const quiet = () => {};
  Runtime.install({
    logger: { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: quiet, error: (m: string) => console.error(m) } as never,
  });
  const dir = mkdtempSync(join(tmpdir(), 'delegate-histories-'));
  const server = await startDevServer({
    dbFile: join(dir, 'temporal.sqlite'),
    port: await freePort(),
    headless: true,
    logFile: join(dir, 'server.log'),
  });
  const receiver = createServer((req, res) => req.resume().on('end', () => res.writeHead(200).end()));
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const workerConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const taskQueue = 'delegate-histories';
  // role scenarios: an llm agent on a local fake provider, and the role it plays
  const llm = await startFakeLlm();
  const agentsFile = join(dir, 'agents.json');
  writeFileSync(agentsFile, JSON.stringify(scenarioAgents(llm.url)));
  // agent steps run on this one queue too: no agentQueue is passed
  const worker = await createWorker({
    connection: workerConnection,
    namespace: 'default',
    taskQueue,
    workflowBundle: await bundleWorkflows(),
    registry: loadRegistry(agentsFile),
    webhook: { policy: { allowLoopback: true } },
    record: (await openRecord({ sqliteFile: join(dir, 'record.db') })).store,
  });
  const running = worker.run();
  try {
    const ctx: ScenarioContext = { client, taskQueue, webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` };
    const chosen = SCENARIOS.filter((s) => only.length === 0 || only.includes(s.name));
    await Promise.all(
      chosen.map(async (s) => {
        const t0 = Date.now();
        await s.run(ctx, rootOf(s.name));
        console.log(`${s.name}: ran in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      }),
    );
    // children abandoned by their parent (webhooks) or cancelled ones may still be closing
    const deadline = Date.now() + 120_000;
    while ((await client.workflow.count('ExecutionStatus="Running"')).count > 0) {
      if (Date.now() > deadline) throw new Error('workflows still running two minutes after their scenarios ended');
      await new Promise((r) => setTimeout(r, 250));
    }
    mkdirSync(FIXTURES_DIR, { recursive: true });
    for (const s of chosen) {
      const runs = await collectRuns(client, rootOf(s.name), s.keep ?? (() => true));
      const bytes = encodeFixture(runs);
      writeFileSync(join(FIXTURES_DIR, `${s.name}.json.gz`), bytes);
      const events = runs.reduce((n, r) => n + (r.history as { events: unknown[] }).events.length, 0);
      console.log(`${s.name}: ${runs.length} runs, ${events} events, ${(bytes.length / 1024).toFixed(1)} KiB`);
    }
    if (chosen.some((s) => s.name === 'fanout')) {
      // the CLI's own JSON form: what an operator exports from production to reproduce a failure
      const cli = await ensureTemporalCli();
      const { stdout } = await promisify(execFile)(
        cli,
        ['workflow', 'show', '--workflow-id', rootOf('fanout'), '--output', 'json', '--address', server.address],
        { maxBuffer: 64 << 20 },
      );
      writeFileSync(join(FIXTURES_DIR, 'fanout.cli.json.gz'), gzipSync(stdout, { level: 9 }));
      console.log(`fanout.cli: ${(stdout.length / 1024).toFixed(1)} KiB of CLI JSON`);
    }
  } finally {
    worker.shutdown();
    await running.catch((err) => console.error('worker ended with', err));
    await connection.close();
    await workerConnection.close();
    await server.stop();
    receiver.close();
    llm.server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
