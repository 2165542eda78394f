/**
 * The agent breaker's contract: the entity workflow one per agent (and tenant) that every
 * worker's steps report to (activities/circuit-breaker.ts starts it and sends it the messages
 * of contracts/messages.ts), and its input, carried on through continue-as-new.
 *
 *   worker ──signalWithStart agentBreaker(AgentBreakerInput) · stepOutcome · acquireTrial──> breaker
 */
import type { BreakerSettings } from '../schemas/breaker';
import type { BreakerState } from '../core/breaker-state';

/** Input of the breaker workflow. */
export interface AgentBreakerInput {
  agentId: string;
  /** Whose steps it counts; absent on breakers of steps without a tenant (and on runs begun before breakers were per tenant). */
  tenant?: string;
  settings: BreakerSettings;
  /** Set by the previous run (continue-as-new): the state so far. */
  carry?: BreakerState;
  /** Continue as new once the run's history passes this many events. @default 500 */
  eventsPerRun?: number;
}

/** The breaker workflow's type (`agentBreaker`), for a client that starts or signals it by name. */
export type AgentBreakerWorkflow = (input: AgentBreakerInput) => Promise<BreakerState>;
