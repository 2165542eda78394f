/**
 * A per-worker circuit breaker for remote agents: after `failures` failed steps in a row,
 * an agent's circuit opens and its steps fail fast with `circuit_open` for `cooldownMs`;
 * then one trial step goes through (half-open) and its outcome closes or reopens it.
 *
 *   closed ──n failures──> open ──cooldown──> half-open ──success──> closed
 *                                                     └──failure──> open
 */

/** Options of `createCircuitBreaker`. */
export interface CircuitBreakerOptions {
  /** Failed steps in a row that open the circuit. @default 5 */
  failures?: number;
  /** How long an open circuit refuses steps. @default 30000 */
  cooldownMs?: number;
  /** Clock, for tests. @default Date.now */
  now?: () => number;
}

interface State {
  consecutive: number;
  openUntil: number;
  trialInFlight: boolean;
}

/** The breaker's interface. */
export interface CircuitBreaker {
  /** Milliseconds until the agent's circuit lets a step through; 0 when it may run now. */
  blockedFor(agentId: string): number;
  succeeded(agentId: string): void;
  failed(agentId: string): void;
  /** A step that ended without a verdict (cancelled): frees a half-open trial. */
  abandoned(agentId: string): void;
  /** Each agent's circuit as it stands now (for /metrics), agents it has seen only. */
  states(): Map<string, CircuitState>;
}

/** Where an agent's circuit stands: `half_open` once the cooldown is over, until a trial step decides. */
export type CircuitState = 'closed' | 'open' | 'half_open';

/** Creates a breaker keyed by agent id. */
export function createCircuitBreaker({ failures = 5, cooldownMs = 30_000, now = Date.now }: CircuitBreakerOptions = {}): CircuitBreaker {
  const states = new Map<string, State>();
  const get = (id: string) => {
    let s = states.get(id);
    if (!s) states.set(id, (s = { consecutive: 0, openUntil: 0, trialInFlight: false }));
    return s;
  };
  return {
    blockedFor(id) {
      const s = get(id);
      if (s.consecutive < failures) return 0;
      const wait = s.openUntil - now();
      if (wait > 0) return wait;
      if (s.trialInFlight) return cooldownMs;
      s.trialInFlight = true;
      return 0;
    },
    succeeded(id) {
      states.set(id, { consecutive: 0, openUntil: 0, trialInFlight: false });
    },
    abandoned(id) {
      get(id).trialInFlight = false;
    },
    failed(id) {
      const s = get(id);
      s.consecutive++;
      s.trialInFlight = false;
      if (s.consecutive >= failures) s.openUntil = now() + cooldownMs;
    },
    states() {
      const t = now();
      return new Map([...states].map(([id, s]) => [id, s.consecutive < failures ? 'closed' : s.openUntil > t ? 'open' : 'half_open']));
    },
  };
}
