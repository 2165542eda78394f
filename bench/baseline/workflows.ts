/**
 * The bare-SDK baseline of the orchestration bench: a parent starts n child workflows,
 * each running one no-op activity. No budgets, no agents, no aggregation: what Temporal
 * itself costs for the same shape.
 */
import { executeChild, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type * as activities from './activities';

const { noop } = proxyActivities<typeof activities>({ startToCloseTimeout: '30 seconds' });

/** One child: one no-op activity. */
export async function baselineChild(input: { i: number }): Promise<{ i: number; ok: true }> {
  await noop(input);
  return { i: input.i, ok: true };
}

/** The parent: n children at once, all awaited. */
export async function baselineFanout({ n }: { n: number }): Promise<number> {
  const id = workflowInfo().workflowId;
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) => executeChild(baselineChild, { workflowId: `${id}/${i}`, args: [{ i }] })),
  );
  return results.length;
}

/**
 * Past one parent's limits (2,000 pending children, 51,200 events): a parent of fan-outs of at
 * most `per` children each, `parallel` fan-outs at a time (Delegate's wide job keeps about as
 * many subtasks in flight: 100 batches of up to 100 running children; 10,000 children started
 * at once swamp a one-machine server).
 */
export async function baselineTree({ n, per, parallel }: { n: number; per: number; parallel: number }): Promise<number> {
  const id = workflowInfo().workflowId;
  const sizes = Array.from({ length: Math.ceil(n / per) }, (_, i) => Math.min(per, n - i * per));
  let next = 0;
  let done = 0;
  const lane = async () => {
    while (next < sizes.length) {
      const i = next++;
      const finished = await executeChild(baselineFanout, { workflowId: `${id}/b${i}`, args: [{ n: sizes[i] }] });
      done += finished; // not `done += await …`: that reads `done` before the await and loses the other lanes' counts
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, sizes.length) }, lane));
  return done;
}
