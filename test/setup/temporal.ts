/**
 * Global setup: a real Temporal dev server on free ports (never the one `npm start`
 * uses), one worker with the workflows bundled once per run, both stopped at the end.
 */
import { NativeConnection, Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort, startDevServer } from '../../scripts/dev-server';
import { bundleWorkflows, createWorker } from '../../workers/worker';
import { TEST_WEBHOOK_SECRET } from '../webhook-secret';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    taskQueue: string;
  }
}

export default async function setup(project: TestProject) {
  Runtime.install({ logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: (m: string) => console.error(m) } as never,
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) } } });
  const dir = mkdtempSync(join(tmpdir(), 'delegate-test-'));
  const server = await startDevServer({ dbFile: join(dir, 'temporal.sqlite'), port: await freePort(), headless: true, logFile: join(dir, 'server.log') });
  const taskQueue = `delegate-test-${process.pid}`;
  const connection = await NativeConnection.connect({ address: server.address });
  const worker = await createWorker({ connection, namespace: 'default', taskQueue, workflowBundle: await bundleWorkflows(), webhookSecret: TEST_WEBHOOK_SECRET });
  const running = worker.run();
  project.provide('temporalAddress', server.address);
  project.provide('taskQueue', taskQueue);
  return async () => {
    worker.shutdown();
    await running.catch((err) => console.error('worker ended with', err));
    await connection.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
