/**
 * Delegate's A2A cost extension (pure, zod-free): a caller passes the budget the callee may
 * spend in the message's metadata, and the callee reports what it spent in the task's metadata,
 * both under the extension's URI, with keys named as OpenTelemetry's GenAI conventions name the
 * same quantities so a span can carry them as they are (the shape of the cost-propagation
 * proposal, a2aproject/A2A#2121):
 *
 *   message.metadata[URI] = { "gen_ai.agent.cost_budget.limit": 0.42, "gen_ai.agent.cost_budget.currency": "USD",
 *                             "gen_ai.agent.token_budget.limit": 12000, "delegate.budget.tool_calls": 5, "delegate.budget.latency_seconds": 90 }
 *   task.metadata[URI]    = { "gen_ai.usage.cost.amount": 0.0123, "gen_ai.usage.cost.currency": "USD", "gen_ai.usage.cost.source": "local",
 *                             "gen_ai.usage.input_tokens": 1200, "gen_ai.usage.output_tokens": 340, "delegate.usage.tool_calls": 2 }
 *
 * A report is read under the URI, else from the same keys at the metadata's top level (an agent
 * that writes them flat, as spans do); only US dollars are booked.
 */
import type { Budget, Usage } from '../schemas/budget';

/** The extension's URI: in the agent card's capabilities.extensions, the A2A-Extensions header, and the metadata key. */
export const COST_EXTENSION_URI = 'https://delegate.dev/a2a/extensions/cost/v1';

/** The metadata keys, OTel GenAI's where it has one (gen_ai.usage.cost.* is its proposed cost group). */
export const COST_KEYS = {
  costLimit: 'gen_ai.agent.cost_budget.limit',
  costLimitCurrency: 'gen_ai.agent.cost_budget.currency',
  tokenLimit: 'gen_ai.agent.token_budget.limit',
  toolCallLimit: 'delegate.budget.tool_calls',
  latencyLimit: 'delegate.budget.latency_seconds',
  cost: 'gen_ai.usage.cost.amount',
  currency: 'gen_ai.usage.cost.currency',
  source: 'gen_ai.usage.cost.source',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  toolCalls: 'delegate.usage.tool_calls',
} as const;

type Metadata = Record<string, unknown>;

/** The budget a callee may spend, as message metadata (the axes with a cap); undefined when nothing is capped. */
export function budgetMetadata(left: Budget): Metadata | undefined {
  const entries: [string, number | string][] = [];
  if (left.costUsd !== undefined) entries.push([COST_KEYS.costLimit, left.costUsd], [COST_KEYS.costLimitCurrency, 'USD']);
  if (left.tokens !== undefined) entries.push([COST_KEYS.tokenLimit, left.tokens]);
  if (left.toolCalls !== undefined) entries.push([COST_KEYS.toolCallLimit, left.toolCalls]);
  if (left.latencySeconds !== undefined) entries.push([COST_KEYS.latencyLimit, Math.max(0, Math.floor(left.latencySeconds))]);
  return entries.length ? { [COST_EXTENSION_URI]: Object.fromEntries(entries) } : undefined;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);

/** The budget a caller passed in a message's metadata (the axes it capped); undefined when it passed none. */
export function budgetOfMetadata(metadata: Metadata | undefined): Budget | undefined {
  const m = metadata?.[COST_EXTENSION_URI];
  if (!m || typeof m !== 'object') return undefined;
  const o = m as Metadata;
  const currency = o[COST_KEYS.costLimitCurrency];
  const budget: Budget = {
    ...(num(o[COST_KEYS.costLimit]) !== undefined && (currency === undefined || currency === 'USD')
      ? { costUsd: num(o[COST_KEYS.costLimit]) }
      : {}),
    ...(num(o[COST_KEYS.tokenLimit]) !== undefined ? { tokens: Math.floor(num(o[COST_KEYS.tokenLimit])!) } : {}),
    ...(num(o[COST_KEYS.toolCallLimit]) !== undefined ? { toolCalls: Math.floor(num(o[COST_KEYS.toolCallLimit])!) } : {}),
    ...(num(o[COST_KEYS.latencyLimit]) !== undefined ? { latencySeconds: num(o[COST_KEYS.latencyLimit]) } : {}),
  };
  return Object.keys(budget).length ? budget : undefined;
}

/** What a job or task spent, as task metadata. */
export function spendMetadata(
  spent: Pick<Usage, 'costUsd' | 'tokens' | 'toolCalls'> & Partial<Pick<Usage, 'inputTokens' | 'outputTokens'>>,
): Metadata {
  return {
    [COST_EXTENSION_URI]: {
      [COST_KEYS.cost]: spent.costUsd,
      [COST_KEYS.currency]: 'USD',
      // Delegate prices its agents' usage itself (or books what they reported): computed here, not a provider's bill
      [COST_KEYS.source]: 'local',
      ...(spent.inputTokens !== undefined ? { [COST_KEYS.inputTokens]: spent.inputTokens } : {}),
      ...(spent.outputTokens !== undefined ? { [COST_KEYS.outputTokens]: spent.outputTokens } : {}),
      [COST_KEYS.toolCalls]: spent.toolCalls,
    },
  };
}

/** A reported spend in metadata: cost in US dollars and tokens; undefined when none is reported (or in another currency). */
export function reportedUsage(metadata: Metadata | undefined): Partial<Usage> | undefined {
  if (!metadata) return undefined;
  const nested = metadata[COST_EXTENSION_URI];
  const o = nested && typeof nested === 'object' ? (nested as Metadata) : metadata;
  const cost = num(o[COST_KEYS.cost]);
  const currency = o[COST_KEYS.currency];
  const input = num(o[COST_KEYS.inputTokens]);
  const output = num(o[COST_KEYS.outputTokens]);
  const toolCalls = num(o[COST_KEYS.toolCalls]);
  const usage: Partial<Usage> = {
    ...(cost !== undefined && (currency === undefined || currency === 'USD') ? { costUsd: cost } : {}),
    ...(input !== undefined || output !== undefined
      ? {
          tokens: Math.floor((input ?? 0) + (output ?? 0)),
          ...(input !== undefined ? { inputTokens: Math.floor(input) } : {}),
          ...(output !== undefined ? { outputTokens: Math.floor(output) } : {}),
        }
      : {}),
    ...(toolCalls !== undefined ? { toolCalls: Math.floor(toolCalls) } : {}),
  };
  return Object.keys(usage).length ? usage : undefined;
}

/** A job's budget under a caller's: the lower cap on each axis either names; undefined when neither caps anything. */
export function capBudget(own: Budget | undefined, given: Budget | undefined): Budget | undefined {
  if (!given) return own;
  const out: Budget = { ...own };
  for (const [axis, cap] of Object.entries(given) as [keyof Budget, number | undefined][]) {
    if (cap === undefined) continue;
    const mine = out[axis];
    out[axis] = mine === undefined ? cap : Math.min(mine, cap);
  }
  return out;
}
