/**
 * A bench's own stack: a dev server, the workers of one queue (tenant default's lane too) and a
 * listening API with auth off, all in this process; `stop()` takes them down in order.
 */
import { buildApp } from '../api/app';
import { loadRegistry } from '../activities';
import { loadConfig } from '../config/config';
import { loadTenants } from '../config/tenants';
import { agentQueueFor } from '../core/names';
import { bundleWorkflows, createWorkers } from '../workers/worker';
import { benchRecord, quietRuntime, startTemporal } from './lib';

export async function startApiStack(name: string, taskQueue: string) {
  if (!process.env.BENCH_VERBOSE) quietRuntime();
  const t = await startTemporal(name);
  const record = await benchRecord();
  // the API sends tenant default's steps to its own lane
  const workers = await createWorkers(
    { connection: t.workerConnection, namespace: 'default', taskQueue, workflowBundle: await bundleWorkflows(), record },
    [{ taskQueue: agentQueueFor(taskQueue, 'default'), slots: 200 }],
  );
  const running = Promise.all(workers.map((w) => w.run()));
  const config = loadConfig({
    TEMPORAL_ADDRESS: t.server.address,
    DELEGATE_TASK_QUEUE: taskQueue,
    DELEGATE_AUTH: 'off',
    LOG_LEVEL: 'silent',
  });
  const app = await buildApp({ config, client: t.client, registry: loadRegistry(), tenants: loadTenants(config), record });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    t,
    record,
    app,
    base: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`,
    async stop() {
      await app.close();
      for (const w of workers) w.shutdown();
      await running;
      await t.close();
    },
  };
}
