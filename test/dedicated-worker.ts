/** A worker of a test file's own, on its own task queue, for options the shared test worker does not have. */
import { readFileSync } from 'node:fs';
import { NativeConnection, type WorkflowBundle } from '@temporalio/worker';
import { inject } from 'vitest';
import { agentQueueFor } from '../core/names';
import { bundleWorkflows, createWorkers, type DelegateWorkerOptions } from '../workers/worker';
import { testRecord, uniqueId } from './helpers';

/** What a dedicated worker may set: everything but where it runs; the record defaults to the run's. */
export type DedicatedWorkerOptions = Omit<DelegateWorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'workflowBundle' | 'record'> &
  Partial<Pick<DelegateWorkerOptions, 'record'>> & {
    /** Tenants whose agent lanes it also serves (jobs the API submits run their steps there). */
    lanes?: string[];
    /** Join this task queue (another dedicated worker's) instead of one of its own. */
    taskQueue?: string;
  };

let shared: WorkflowBundle | undefined;

/**
 * The workflows as the run's shared worker runs them: the bundle the global setup built, read
 * once per test file (bundling again costs seconds of CPU per worker). A traced worker needs a
 * bundle of its own: `bundleWorkflows({ tracing: true })`.
 */
export function sharedWorkflowBundle(): WorkflowBundle {
  return (shared ??= { code: readFileSync(inject('workflowBundleFile'), 'utf8') });
}

/** Starts a worker with `opts` against the run's dev server; `stop()` shuts it down. */
export async function startDedicatedWorker({ lanes = [], taskQueue = uniqueId('own-queue'), ...opts }: DedicatedWorkerOptions) {
  const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  const workers = await createWorkers(
    // breaker workflows run on the shared test worker's queue: it outlives this worker
    {
      connection,
      namespace: 'default',
      taskQueue,
      workflowBundle: opts.tracing !== undefined ? await bundleWorkflows({ tracing: true }) : sharedWorkflowBundle(),
      record: await testRecord(),
      ...opts,
      breaker: { taskQueue: inject('taskQueue'), ...opts.breaker },
    },
    lanes.map((tenant) => ({ taskQueue: agentQueueFor(taskQueue, tenant), slots: 20 })),
  );
  const running = Promise.all(workers.map((w) => w.run()));
  return {
    taskQueue,
    async stop() {
      for (const w of workers) w.shutdown();
      await running;
      await connection.close();
    },
  };
}
