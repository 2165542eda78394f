/**
 * The token split beside the `tokens` axis (which budgets keep counting): input (cached
 * included, as the GenAI conventions count it), output, and the cached part of input. Summed
 * like the axes; a split nobody reported stays absent, never a made-up 0.
 *
 *   provider usage ──llm agent──> step ──> ledger ──> TaskResult.metrics ──> JobResult.metrics
 */

/** The split's fields and the Prometheus `kind` of each. */
export const TOKEN_SPLIT = { inputTokens: 'input', outputTokens: 'output', cachedInputTokens: 'cached_input' } as const;

/** A field of the split. */
export type TokenSplitKey = keyof typeof TOKEN_SPLIT;
/** The split's fields, in report order. */
export const TOKEN_SPLIT_KEYS = Object.keys(TOKEN_SPLIT) as TokenSplitKey[];
/** Each field present only where some step reported it. */
export type TokenSplit = { [K in TokenSplitKey]?: number };

/** The split's fields that `m` has. */
export function splitOf(m: TokenSplit): TokenSplit {
  return addSplit(m, {});
}

/** Two splits summed: a field either side has is present. */
export function addSplit(a: TokenSplit, b: TokenSplit): TokenSplit {
  const out: TokenSplit = {};
  for (const k of TOKEN_SPLIT_KEYS) if (typeof a[k] === 'number' || typeof b[k] === 'number') out[k] = (a[k] ?? 0) + (b[k] ?? 0);
  return out;
}
