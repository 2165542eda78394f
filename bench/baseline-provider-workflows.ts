/**
 * The providers bench's bare-Temporal side (bench/providers.ts, scenario a): a parent starts n child
 * workflows at once, each running one activity that makes the LLM call a Delegate step makes (one
 * streamed turn on the fake provider). No gate, no budgets, no agents: what Temporal itself costs
 * for the same calls.
 *
 *   providerFanout(n) ──> providerChild(i) ──> providerCall(i) ──> fake provider (one turn)
 */
import { executeChild, proxyActivities, workflowInfo } from '@temporalio/workflow';

/** The baseline's one activity: one turn on the provider; its tokens (input + output). */
export interface ProviderCallActivities {
  providerCall(input: { i: number }): Promise<{ tokens: number }>;
}

const { providerCall } = proxyActivities<ProviderCallActivities>({ startToCloseTimeout: '60 seconds' });

/** One child: one call. */
export async function providerChild(input: { i: number }): Promise<{ tokens: number }> {
  return providerCall(input);
}

/** The parent: n children at once, all awaited; how many succeeded and their tokens. */
export async function providerFanout({ n }: { n: number }): Promise<{ ok: number; failed: number; tokens: number }> {
  const id = workflowInfo().workflowId;
  const settled = await Promise.allSettled(
    Array.from({ length: n }, (_, i) => executeChild(providerChild, { workflowId: `${id}/${i}`, args: [{ i }] })),
  );
  const ok = settled.filter((s): s is PromiseFulfilledResult<{ tokens: number }> => s.status === 'fulfilled');
  return { ok: ok.length, failed: n - ok.length, tokens: ok.reduce((t, s) => t + s.value.tokens, 0) };
}
