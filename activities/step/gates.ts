/**
 * The host's checks before an agent step runs, in order: each gate refuses the attempt (a
 * non-retryable failure of its type) or adds what the ones after it and the run need. The host
 * checks, not the agent: a refused step spends nothing.
 *
 *   registry ──> params ──> scope ──> approval ──> breaker ──> schema ──> run
 *   NoAgent     InvalidInput ToolDenied ApprovalRequired CircuitOpen InvalidOutput
 *
 * A new check is a few lines of `preflight`, in its place in that order; its error type is
 * core/errors.ts's, and the subtask's classify.ts says what the subtask makes of it.
 */
import type { Context } from '@temporalio/activity';
import type { AgentStepInput } from '../../contracts/step';
import { ErrorType } from '../../core/errors';
import type { AgentRegistry } from '../agents/registry';
import type { AgentDefinition } from '../agents/types';
import type { CircuitBreaker } from '../circuit-breaker';
import { fatal } from '../errors';
import { schemaThreads } from '../schema-thread';
import { validateParams } from './resolve';

/** What the gates let through: the agent, its params, the breaker that guards it, the output schema. */
export interface Preflight {
  def: AgentDefinition;
  params: Record<string, unknown>;
  /** The breaker of a remote agent, the circuit it counts in and the attempt's ticket for a half-open trial. */
  guard?: { breaker: CircuitBreaker; circuit: { agentId: string; tenant?: string }; ticket: { holder: string; leaseMs: number } };
  /** The task's output schema and whose it is (the schema threads bound each owner's work). */
  schema?: { schema: Record<string, unknown>; owner: { owner: string } };
}

/** What the checks read besides the step's input. */
export interface PreflightContext {
  input: AgentStepInput;
  attempt: number;
  ctx: Context;
  registry: AgentRegistry;
  breaker?: CircuitBreaker;
}

/** Runs the checks in the order above; what they let through, or the first refusal (thrown). */
export async function preflight({ input, attempt, ctx, registry, breaker }: PreflightContext): Promise<Preflight> {
  const def = registry.get(input.agentId);
  if (!def) throw fatal(ErrorType.NoAgent, `no agent "${input.agentId}"`, attempt);
  const params = validateParams(input.agentId, def, input.task.params);
  const tools = def.toolsFor?.(params) ?? [];
  const scope = new Set(input.task.scope ?? []);
  const denied = tools.filter((t) => !scope.has(t));
  if (denied.length > 0) throw fatal(ErrorType.ToolDenied, `tools not in the task scope: ${denied.join(', ')}`, attempt);
  // a tool the approval policy names waits for a human before the agent runs: the workflow opens the approval
  const approved = new Set(input.approvedTools ?? []);
  const gated = tools.filter((t) => input.task.approval?.tools?.includes(t) && !approved.has(t));
  if (gated.length > 0) {
    throw fatal(ErrorType.ApprovalRequired, `approval required before calling ${gated.join(', ')}`, attempt, {
      tools: gated,
      noReprompt: true,
    });
  }
  const guard = await guardOf(def, { input, attempt, ctx, breaker });
  // a schema that cannot compile can never be satisfied: refuse before the agent spends anything.
  // Compiling and validating run in a schema thread, bounded in time and heap: a costly schema fails its own task only
  const outputSchema = input.task.outputSchema;
  const schema = outputSchema ? { schema: outputSchema, owner: { owner: input.events?.tenant ?? 'unknown' } } : undefined;
  if (schema) {
    const compiled = await schemaThreads.compile(schema.schema, schema.owner);
    if (!compiled.ok) throw fatal(ErrorType.InvalidOutput, `invalid outputSchema: ${compiled.error}`, attempt, { noReprompt: true });
  }
  return { def, params, ...(guard ? { guard } : {}), ...(schema ? { schema } : {}) };
}

/** The breaker's check of a remote agent (builtin agents are never cut off): its guard, or CircuitOpen while the circuit is open. */
async function guardOf(
  def: AgentDefinition,
  { input, attempt, ctx, breaker }: Omit<PreflightContext, 'registry'>,
): Promise<Preflight['guard']> {
  if (!breaker || def.manifest.kind === 'builtin') return undefined;
  // one tenant's failures (its own input may provoke them) open that tenant's circuit only
  const circuit = { agentId: def.manifest.id, ...(input.events?.tenant ? { tenant: input.events.tenant } : {}) };
  // a half-open trial is held by this attempt, on a lease as long as the attempt may take
  const ticket = { holder: `${input.stepKey}#${attempt}`, leaseMs: (ctx.info.startToCloseTimeoutMs || 60_000) + 5000 };
  const blocked = await breaker.blockedFor(circuit, ticket);
  if (blocked > 0) {
    throw fatal(
      ErrorType.CircuitOpen,
      `circuit open for agent "${def.manifest.id}" after repeated failures; retry in ${Math.ceil(blocked / 1000)}s`,
      attempt,
    );
  }
  return { breaker, circuit, ticket };
}
