/** A worker of a test file's own, on its own task queue, for options the shared test worker does not have. */
import { NativeConnection } from '@temporalio/worker';
import { inject } from 'vitest';
import { bundleWorkflows, createWorker, type DelegateWorkerOptions } from '../workers/worker';
import { testRecord, uniqueId } from './helpers';

/** Starts a worker with `opts` against the run's dev server; `stop()` shuts it down. */
export async function startDedicatedWorker(opts: Omit<DelegateWorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'workflowBundle' | 'record'> & Partial<Pick<DelegateWorkerOptions, 'record'>>) {
  const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  const taskQueue = uniqueId('own-queue');
  const worker = await createWorker({ connection, namespace: 'default', taskQueue, workflowBundle: await bundleWorkflows(), record: await testRecord(), ...opts });
  const running = worker.run();
  return {
    taskQueue,
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}
