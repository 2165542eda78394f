/**
 * One tenant's wide fan-out does not hold another tenant's small job behind it on the shared
 * workflow queue (audit finding 5): the API starts a job with its tenant as the fairness key, which
 * the job's children and their steps inherit, so the server dispatches the two tenants' workflow
 * tasks by weight instead of first come, first served. From the attacker's side: `bob` starts a wide
 * echo fan-out, `alice` then runs one-task jobs; hers finish long before bob's job does.
 */
import { describe, expect, it } from 'vitest';
import { delegationJob } from '../../workflows';
import { startDedicatedWorker } from '../dedicated-worker';
import { testClient, uniqueId } from '../helpers';

/** Starts a fan-out of `n` echo tasks as the API starts a tenant's job. */
async function start(tenant: string, n: number, fair: boolean, taskQueue: string) {
  const client = await testClient();
  const jobId = uniqueId(`fair-${tenant}`);
  return client.workflow.start(delegationJob, {
    taskQueue,
    workflowId: `job/${tenant}/${jobId}`,
    args: [
      {
        spec: { jobId, pattern: 'fanout', tasks: Array.from({ length: n }, (_, i) => ({ id: `t${i}`, question: `q${i}`, agent: 'echo' })) },
        tenant,
        maxDepth: 3,
      },
    ],
    ...(fair ? { priority: { fairnessKey: tenant, fairnessWeight: 1 } } : {}),
  });
}

/** Bob's wide job, and alice's one-task jobs in a loop while it runs: how long each of hers took, and bob's. */
async function contend(fair: boolean) {
  // a worker of this file's own with few workflow slots: the queue backs up as it does under load
  const worker = await startDedicatedWorker({ tuning: { maxConcurrentWorkflowTaskExecutions: 2 } });
  try {
    const began = Date.now();
    const bob = await start('bob', 400, fair, worker.taskQueue);
    await new Promise((r) => setTimeout(r, 500));
    const alice: number[] = [];
    let bobDone = false;
    const bobResult = bob.result().then((r) => ((bobDone = true), r));
    while (!bobDone && alice.length < 5) {
      const t0 = Date.now();
      await (await start('alice', 1, fair, worker.taskQueue)).result();
      alice.push(Date.now() - t0);
    }
    const result = await bobResult;
    return { alice, bobMs: Date.now() - began, bobOk: result.results.every((r) => r.status === 'success') };
  } finally {
    await worker.stop();
  }
}

describe('tenants on the shared workflow queue', () => {
  it("dispatches a small job beside another tenant's wide fan-out, not behind it", async () => {
    const fair = await contend(true);
    expect(fair.bobOk).toBe(true);
    // alice's first job finished while bob's was far from done
    expect(fair.alice.length).toBeGreaterThan(0);
    expect(fair.alice[0]).toBeLessThan(fair.bobMs * 0.5);
    const fifo = await contend(false);
    console.log(
      `tenant fairness: alice's first job ${fair.alice[0]} ms with fairness keys, ${fifo.alice[0]} ms without; bob's job ${fair.bobMs} / ${fifo.bobMs} ms`,
    );
    expect(fair.alice[0]).toBeLessThan(fifo.alice[0]);
  });
});
