/**
 * A running worker process serves tenants added to the keys file without a restart: each new
 * tenant gets its lane (and the hosted pools on it) from the process's worker set, started at once.
 *
 *   keys file changes ──watchTenants──> tenants not served yet ──addLanes──> fleet.run(worker)
 *
 * Tenants removed from the file keep their lane until the process restarts (their running
 * steps finish there), and a changed `agentSlots` applies to lanes started after the change.
 */
import type { Worker } from '@temporalio/worker';
import type { Config } from '../schemas';
import { watchTenants, type WatchFileOptions } from '../config/tenants';
import { agentQueueFor } from '../core/names';
import type { AgentLane, WorkerSet } from './worker';

/** What the follower logs: a pino logger or anything shaped like one. */
export interface LaneLog {
  info(fields: object, msg: string): void;
  error(fields: object, msg: string): void;
}

/** Runs workers, more as they come, until every one has stopped. */
export interface WorkerFleet {
  /** Runs a worker; false (and not run) once the fleet is shutting down. */
  run(worker: Worker): boolean;
  /** Asks every running worker to stop; later `run` calls are refused. */
  shutdown(): void;
  /** Settles when every worker has stopped; rejects with the first that failed (the process ends, as with one worker). */
  readonly done: Promise<void>;
}

/** A fleet of the given workers, run at once. */
export function createFleet(initial: Worker[]): WorkerFleet {
  const workers: Worker[] = [];
  let running = 0;
  let stopping = false;
  let settle!: () => void;
  let fail!: (err: unknown) => void;
  const done = new Promise<void>((resolve, reject) => ([settle, fail] = [resolve, reject]));
  const fleet: WorkerFleet = {
    run(worker) {
      if (stopping) return false;
      workers.push(worker);
      running += 1;
      worker.run().then(() => void (--running === 0 && settle()), fail);
      return true;
    },
    shutdown() {
      stopping = true;
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
      if (running === 0) settle();
    },
    done,
  };
  for (const w of initial) fleet.run(w);
  return fleet;
}

/** Options of `followTenantLanes`. */
export interface FollowTenantLanesOptions {
  /** DELEGATE_API_KEYS_FILE, DELEGATE_TASK_QUEUE and the quota defaults. */
  config: Config;
  set: Pick<WorkerSet, 'addLanes'>;
  fleet: Pick<WorkerFleet, 'run'>;
  /** The tenants whose lanes already run. */
  served: Iterable<string>;
  log: LaneLog;
  watch?: WatchFileOptions;
}

/** Starts a lane for every tenant the keys file gains; `close` stops following. */
export function followTenantLanes({ config, set, fleet, served, log, watch }: FollowTenantLanesOptions): { close(): void } {
  const known = new Set(served);
  // one change at a time: two quick saves must not start a tenant's lane twice
  let queue = Promise.resolve();
  const watcher = watchTenants(
    config,
    (tenants) => {
      queue = queue.then(async () => {
        const fresh = tenants.list().filter((t) => !known.has(t.tenant));
        if (fresh.length === 0) return;
        const lanes: AgentLane[] = fresh.map((t) => ({
          taskQueue: agentQueueFor(config.DELEGATE_TASK_QUEUE, t.tenant),
          slots: t.quotas.agentSlots,
        }));
        try {
          const workers = await set.addLanes(lanes);
          for (const t of fresh) known.add(t.tenant);
          const started = workers.filter((w) => fleet.run(w)).length;
          log.info(
            { tenants: fresh.map((t) => t.tenant), lanes: lanes.map((l) => `${l.taskQueue}×${l.slots}`), workers: started },
            'keys file changed: serving new tenants',
          );
        } catch (err) {
          // the next change tries again
          log.error({ err: (err as Error).message, tenants: fresh.map((t) => t.tenant) }, 'cannot start the lanes of new tenants');
        }
      });
    },
    (err) => log.error({ err: err.message }, 'keys file changed but does not load: the tenants stay as they were'),
    watch,
  );
  return watcher;
}
