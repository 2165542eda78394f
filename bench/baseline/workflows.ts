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
  const results = await Promise.all(Array.from({ length: n }, (_, i) => executeChild(baselineChild, { workflowId: `${id}/${i}`, args: [{ i }] })));
  return results.length;
}
