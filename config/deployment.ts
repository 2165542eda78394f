/**
 * A deployment's identity: the record its processes write to. Its workers carry the record's
 * deployment id in their Temporal identity (`delegate:<id>:<pid>@<host>`), so a worker at start
 * (workers/main.ts refuses to start) and the API's /readyz (not ready) tell this deployment's
 * pollers of the task queue from another's. Not in core/: no workflow needs it, and every
 * module of core/ is in every workflow bundle.
 *
 *   record ──deployment id──> worker identity ──poll──> task queue
 *   worker start, /readyz ──describeTaskQueue (workflow, activity)──> another id polled lately? ──> refuse | not ready
 */
import type { Connection } from '@temporalio/client';

/** The first part of every Delegate worker's identity. */
const IDENTITY_PREFIX = 'delegate';

/** How recent a poll of another deployment must be to count: a worker that stopped longer ago is gone. */
export const OTHER_DEPLOYMENT_WINDOW_MS = 60_000;

/** A worker's Temporal identity: `delegate:<deploymentId>:<pid>@<host>`. */
export function workerIdentity(deploymentId: string, pid: number, host: string): string {
  return `${IDENTITY_PREFIX}:${deploymentId}:${pid}@${host}`;
}

/** The deployment id a worker identity carries; undefined for any other identity (the SDK's default `<pid>@<host>`, older workers). */
export function deploymentOfIdentity(identity: string): string | undefined {
  const m = /^delegate:([A-Za-z0-9_-]+):/.exec(identity);
  return m?.[1];
}

/** A poller as a task queue's description lists it. */
export interface PollerSeen {
  identity: string;
  /** Epoch ms of its last poll; undefined = the server saw it just now. */
  lastPolledMs?: number;
}

/** A poller of another deployment. */
export interface OtherPoller {
  deploymentId: string;
  identity: string;
  queue: string;
}

/**
 * The pollers of `queue` that belong to another deployment than `ours` and polled within
 * `windowMs` of `now`. Identities without a deployment id are left out: a worker of an older
 * release of this deployment, during a rolling upgrade, must not stop the new one.
 */
export function otherDeploymentPollers(
  queue: string,
  pollers: PollerSeen[],
  ours: string,
  now: number,
  windowMs = OTHER_DEPLOYMENT_WINDOW_MS,
): OtherPoller[] {
  return pollers.flatMap((p) => {
    const id = deploymentOfIdentity(p.identity);
    const recent = p.lastPolledMs === undefined || now - p.lastPolledMs <= windowMs;
    return id !== undefined && id !== ours && recent ? [{ deploymentId: id, identity: p.identity, queue }] : [];
  });
}

/** Says which other deployment polls which queue, for a refusal at start and (`withWorker` false: no host names) for /readyz. */
export function otherDeploymentMessage(ours: string, found: OtherPoller[], withWorker = true): string {
  const first = found[0];
  if (!first) return '';
  const ids = [...new Set(found.map((f) => f.deploymentId))].join(', ');
  return (
    `task queue "${first.queue}" is polled by another deployment (${ids}${withWorker ? `, worker ${first.identity}` : ''}) than this one (${ours}): ` +
    'a deployment with another record on the same namespace and queue would take part of every job. ' +
    'Give each deployment its own DELEGATE_TASK_QUEUE (or namespace), or point both at the same record'
  );
}

/** Temporal API's TaskQueueType wire values: workflow, activity. */
const QUEUE_TYPES = [1, 2] as const;

/** A number out of a protobuf Long, number or null. */
const num = (v: { toString(): string } | number | null | undefined): number => (v == null ? 0 : Number(v.toString()));

/** Options of `findOtherDeployments`. */
export interface OtherDeploymentsOptions {
  connection: Pick<Connection, 'workflowService' | 'withDeadline'>;
  namespace: string;
  /** The queues to describe (workflow and activity pollers of each). */
  queues: string[];
  /** This deployment's id (the record's). */
  deploymentId: string;
  /** Longest the look-ups may take. @default 2000 */
  timeoutMs?: number;
}

/** The pollers of another deployment that polled `queues` within the last minute (none: this deployment has them to itself). */
export async function findOtherDeployments({
  connection,
  namespace,
  queues,
  deploymentId,
  timeoutMs = 2000,
}: OtherDeploymentsOptions): Promise<OtherPoller[]> {
  const found = await Promise.all(
    queues.flatMap((queue) =>
      QUEUE_TYPES.map(async (taskQueueType) => {
        const res = await connection.withDeadline(Date.now() + timeoutMs, () =>
          connection.workflowService.describeTaskQueue({ namespace, taskQueue: { name: queue }, taskQueueType }),
        );
        const pollers = (res.pollers ?? []).map((p) => ({
          identity: p.identity ?? '',
          lastPolledMs: p.lastAccessTime ? num(p.lastAccessTime.seconds) * 1000 + num(p.lastAccessTime.nanos) / 1e6 : undefined,
        }));
        return otherDeploymentPollers(queue, pollers, deploymentId, Date.now());
      }),
    ),
  );
  return found.flat();
}
