/** What the run's fake LLM (the global setup's, at `inject('fakeLlmUrl')`) was asked, for tests that check a request's body. */
import { inject } from 'vitest';

/** The bodies of the requests the fake LLM got for `model`, parsed, in arrival order. */
export async function capturedBodies<T = Record<string, unknown>>(model: string): Promise<T[]> {
  const res = await fetch(`${inject('fakeLlmUrl')}/v1/_captured?model=${encodeURIComponent(model)}`);
  return ((await res.json()) as { body: string }[]).map((c) => JSON.parse(c.body) as T);
}
