/**
 * Tenant fairness: a hog tenant fills the agent slots with long steps, then a victim tenant
 * submits a one-step echo job. Measured twice in one run, on one worker process:
 * - shared: both tenants' steps on one pool of SLOTS (how every job ran before agent lanes);
 * - lanes: each tenant's steps in its own lane of SLOTS / 2.
 * The victim's time to its result is the figure; a victim still waiting after CAP_S is
 * reported as blocked (it would wait until the hog's steps end or are cancelled).
 */
import { agentQueueFor } from '../core/names';
import { bundleWorkflows, createWorkers } from '../workers/worker';
import { benchRecord, quietRuntime, report, round, sleep, startTemporal } from './lib';
import { delegationJob } from '../workflows/delegation-job';

const SLOTS = Number(process.env.BENCH_SLOTS ?? 8);
const CAP_S = Number(process.env.BENCH_CAP_S ?? 30);

quietRuntime();
const t = await startTemporal('fairness');
const taskQueue = 'bench-fair';
const bundle = await bundleWorkflows();
const common = { connection: t.workerConnection, namespace: 'default' };
const workers = await createWorkers(
  { ...common, taskQueue, workflowBundle: bundle, maxConcurrentActivities: SLOTS, record: await benchRecord() },
  ['hog', 'victim'].map((tenant) => ({ taskQueue: agentQueueFor(taskQueue, tenant), slots: SLOTS / 2 })),
);
const running = Promise.all(workers.map((w) => w.run()));

async function scenario(mode: 'shared' | 'lanes') {
  const lane = (tenant: string) => (mode === 'lanes' ? { agentQueue: agentQueueFor(taskQueue, tenant) } : {});
  const hogId = `hog-${mode}`;
  // twice as many ten-minute steps as the whole worker has slots
  const tasks = Array.from({ length: SLOTS * 2 }, (_, i) => ({
    id: `h${i}`,
    question: 'hold a slot',
    agent: 'sim',
    params: { latencyMs: 600_000 },
  }));
  const hog = await t.client.workflow.start(delegationJob, {
    taskQueue,
    workflowId: `job/hog/${hogId}`,
    args: [{ spec: { jobId: hogId, pattern: 'fanout', tasks }, tenant: 'hog', ...lane('hog') }],
  });
  await sleep(3000);
  const victimId = `victim-${mode}`;
  const started = performance.now();
  const victim = await t.client.workflow.start(delegationJob, {
    taskQueue,
    workflowId: `job/victim/${victimId}`,
    args: [
      {
        spec: { jobId: victimId, pattern: 'fanout', tasks: [{ id: 'e', question: 'hello', agent: 'echo' }] },
        tenant: 'victim',
        ...lane('victim'),
      },
    ],
  });
  const outcome = await Promise.race([victim.result(), sleep(CAP_S * 1000).then(() => undefined)]);
  const ms = outcome ? performance.now() - started : undefined;
  await hog.cancel();
  await hog.result().catch(() => undefined);
  await victim.result().catch(() => undefined);
  return { mode, ms, status: outcome?.status ?? 'blocked' };
}

try {
  const shared = await scenario('shared');
  const fair = await scenario('lanes');
  const fmt = (ms?: number) => (ms === undefined ? `> ${CAP_S * 1000} (blocked)` : round(ms, 0));
  report(
    'fairness',
    `Victim echo job while a hog holds long steps (${SLOTS} slots per worker)`,
    ['agent slots', 'victim ms', 'victim status'],
    [
      [`shared pool of ${SLOTS}`, fmt(shared.ms), shared.status],
      [`lane per tenant (${SLOTS / 2} each)`, fmt(fair.ms), fair.status],
    ],
    { slots: SLOTS, capSeconds: CAP_S, shared, lanes: fair },
  );
} finally {
  for (const w of workers) w.shutdown();
  await running.catch((err) => console.error(err));
  await t.close();
}
