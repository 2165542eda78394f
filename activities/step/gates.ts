/**
 * The host's checks before an agent step runs, in order: each gate refuses the attempt (a
 * non-retryable failure of its type) or adds what the ones after it and the run need. The host
 * checks, not the agent: a refused step spends nothing.
 *
 *   registry ──> params ──> scope ──> approval ──> breaker ──> schema ──> run
 *   NoAgent     InvalidInput ToolDenied ApprovalRequired CircuitOpen InvalidOutput
 *
 * A new check is one entry of PREFLIGHT_GATES; its error type is core/errors.ts's, and the
 * subtask's classify.ts says what the subtask makes of it.
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

/** What every gate reads. */
export interface GateContext {
  input: AgentStepInput;
  attempt: number;
  ctx: Context;
  registry: AgentRegistry;
  breaker?: CircuitBreaker;
}

/** One check: refuses by throwing, or adds to the preflight; reads what the gates before it added. */
export type PreflightGate = (g: GateContext, p: Partial<Preflight>) => void | Promise<void>;

/** The agent's tools for these params (its `toolsFor`). */
const toolsOf = (p: Partial<Preflight>) => p.def!.toolsFor?.(p.params!) ?? [];

/** The gates, in the order they run; each name says what it checks. */
export const PREFLIGHT_GATES: readonly (readonly [name: string, gate: PreflightGate])[] = [
  [
    'registry',
    ({ input, attempt, registry }, p) => {
      p.def = registry.get(input.agentId);
      if (!p.def) throw fatal(ErrorType.NoAgent, `no agent "${input.agentId}"`, attempt);
    },
  ],
  ['params', ({ input }, p) => void (p.params = validateParams(input.agentId, p.def!, input.task.params))],
  [
    'scope',
    ({ input, attempt }, p) => {
      const scope = new Set(input.task.scope ?? []);
      const denied = toolsOf(p).filter((t) => !scope.has(t));
      if (denied.length > 0) throw fatal(ErrorType.ToolDenied, `tools not in the task scope: ${denied.join(', ')}`, attempt);
    },
  ],
  [
    // a tool the approval policy names waits for a human before the agent runs: the workflow opens the approval
    'approval',
    ({ input, attempt }, p) => {
      const approved = new Set(input.approvedTools ?? []);
      const gated = toolsOf(p).filter((t) => input.task.approval?.tools?.includes(t) && !approved.has(t));
      if (gated.length > 0) {
        throw fatal(ErrorType.ApprovalRequired, `approval required before calling ${gated.join(', ')}`, attempt, {
          tools: gated,
          noReprompt: true,
        });
      }
    },
  ],
  [
    'breaker',
    async ({ input, attempt, ctx, breaker }, p) => {
      // builtin agents are never cut off
      if (!breaker || p.def!.manifest.kind === 'builtin') return;
      // one tenant's failures (its own input may provoke them) open that tenant's circuit only
      const circuit = { agentId: p.def!.manifest.id, ...(input.events?.tenant ? { tenant: input.events.tenant } : {}) };
      // a half-open trial is held by this attempt, on a lease as long as the attempt may take
      const ticket = { holder: `${input.stepKey}#${attempt}`, leaseMs: (ctx.info.startToCloseTimeoutMs || 60_000) + 5000 };
      p.guard = { breaker, circuit, ticket };
      const blocked = await breaker.blockedFor(circuit, ticket);
      if (blocked > 0) {
        throw fatal(
          ErrorType.CircuitOpen,
          `circuit open for agent "${p.def!.manifest.id}" after repeated failures; retry in ${Math.ceil(blocked / 1000)}s`,
          attempt,
        );
      }
    },
  ],
  [
    // a schema that cannot compile can never be satisfied: refuse before the agent spends anything.
    // Compiling and validating run in a schema thread, bounded in time and heap: a costly schema fails its own task only
    'schema',
    async ({ input, attempt }, p) => {
      const schema = input.task.outputSchema;
      if (!schema) return;
      p.schema = { schema, owner: { owner: input.events?.tenant ?? 'unknown' } };
      const compiled = await schemaThreads.compile(schema, p.schema.owner);
      if (!compiled.ok) throw fatal(ErrorType.InvalidOutput, `invalid outputSchema: ${compiled.error}`, attempt, { noReprompt: true });
    },
  ],
];

/** Runs every gate in order; what they let through. */
export async function preflight(g: GateContext): Promise<Preflight> {
  const p: Partial<Preflight> = {};
  for (const [, gate] of PREFLIGHT_GATES) await gate(g, p);
  return p as Preflight;
}
