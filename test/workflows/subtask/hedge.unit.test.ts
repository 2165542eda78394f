/**
 * The hedged step (hedge.ts) on a forced clock: the workflow API is a fake whose timers, conditions
 * and activities run on vitest's fake clock, and whose cancellation scopes cancel what was started
 * in them (an activity rejects with a CancelledFailure carrying what it had spent, as agentStep does).
 * The hedge starts at exactly the step's start + its delay, never before; the first valid answer
 * wins; the other is cancelled and booked; a cut halts both. As waits.unit.test.ts says, the SDK's
 * time skipping is not available here.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentStepInput, AgentStepOutput } from '../../../contracts/step';

const fake = vi.hoisted(() => {
  /** The SDK's own CancelledFailure (set by the mock's factory), so classify() reads a cancel as it does in a run. */
  let Cancelled: new (message: string, details?: unknown[]) => Error = Error;
  class CancellationScope {
    static current: CancellationScope | undefined;
    private readonly onCancel = new Set<() => void>();
    run<T>(fn: () => Promise<T>): Promise<T> {
      const prev = CancellationScope.current;
      CancellationScope.current = this;
      try {
        return fn();
      } finally {
        CancellationScope.current = prev;
      }
    }
    cancel(): void {
      for (const f of this.onCancel) f();
      this.onCancel.clear();
    }
    add(f: () => void): () => void {
      this.onCancel.add(f);
      return () => this.onCancel.delete(f);
    }
  }
  const waiters = new Set<{ fn: () => boolean; done: (v: boolean) => void }>();
  /** A scripted step: answers after `ms` (or fails), spends `usage` per second of its run when cut. */
  type Script = { ms: number; out?: Partial<AgentStepOutput>; fail?: string; costPerSecond?: number };
  return {
    set Cancelled(c: typeof Cancelled) {
      Cancelled = c;
    },
    get Cancelled() {
      return Cancelled;
    },
    CancellationScope,
    scripts: [] as Script[],
    started: [] as { at: number; input: AgentStepInput }[],
    cancelledAt: [] as { stepKey: string; at: number }[],
    /** The record's step latency look-up (a local activity), and how often it was asked. */
    stepLatency: (): Promise<unknown> => Promise.resolve({ runs: 0 }),
    latencyAsked: 0,
    warned: [] as string[],
    recheck() {
      for (const w of waiters) if (w.fn()) w.done(true);
    },
    condition(fn: () => boolean, timeoutMs?: number): Promise<boolean> {
      if (fn()) return Promise.resolve(true);
      const scope = CancellationScope.current;
      return new Promise<boolean>((resolve, reject) => {
        const timer = timeoutMs === undefined ? undefined : setTimeout(() => w.done(false), timeoutMs);
        const off = scope?.add(() => {
          clearTimeout(timer);
          waiters.delete(w);
          reject(new Cancelled('cancelled'));
        });
        const w = {
          fn,
          done: (v: boolean) => {
            clearTimeout(timer);
            off?.();
            waiters.delete(w);
            resolve(v);
          },
        };
        waiters.add(w);
      });
    },
    sleep(ms: number): Promise<void> {
      const scope = CancellationScope.current;
      return new Promise<void>((resolve, reject) => {
        const off = scope?.add(() => {
          clearTimeout(t);
          reject(new Cancelled('timer cancelled'));
        });
        const t = setTimeout(() => {
          off?.();
          resolve();
        }, ms);
      });
    },
    agentStep(input: AgentStepInput): Promise<AgentStepOutput> {
      const script = this.scripts.shift() ?? { ms: 100 };
      const startedAt = Date.now();
      this.started.push({ at: startedAt, input });
      const scope = CancellationScope.current;
      return new Promise<AgentStepOutput>((resolve, reject) => {
        const off = scope?.add(() => {
          clearTimeout(t);
          this.cancelledAt.push({ stepKey: input.stepKey, at: Date.now() });
          const costUsd = ((Date.now() - startedAt) / 1000) * (script.costPerSecond ?? 0);
          reject(new Cancelled('step cancelled', [{ usage: { costUsd, tokens: 1, toolCalls: 0 } }]));
        });
        const t = setTimeout(() => {
          off?.();
          if (script.fail) reject(Object.assign(new Error(script.fail), { type: 'AgentError' }));
          else resolve(output(script.out));
        }, script.ms);
      });
    },
  };
  function output(over: Partial<AgentStepOutput> = {}): AgentStepOutput {
    return {
      done: true,
      summary: 'answer',
      evidence: [],
      citations: [],
      followUps: [],
      channelsHit: [],
      confidence: 0.9,
      usage: { costUsd: 0.01, tokens: 100, toolCalls: 0 },
      attempt: 1,
      ...over,
    } as AgentStepOutput;
  }
});

// the SDK's failure classes stay its own: with the unit project's shared module cache, classify.ts
// (which hedge.ts imports) must see the real ones in every other test file too
vi.mock('@temporalio/workflow', async (importOriginal) => {
  const actual = await importOriginal<typeof import('@temporalio/workflow')>();
  fake.Cancelled = actual.CancelledFailure;
  return {
    ...actual,
    CancellationScope: fake.CancellationScope,
    condition: fake.condition,
    sleep: fake.sleep,
    proxyActivities: () => ({ agentStep: (input: AgentStepInput) => fake.agentStep(input) }),
    proxyLocalActivities: () => ({
      stepLatency: () => {
        fake.latencyAsked += 1;
        return fake.stepLatency();
      },
    }),
    patched: () => true,
    log: { ...actual.log, info: () => {}, warn: (message: string) => fake.warned.push(message) },
  };
});

const { runHedged, sameAgentHedge } = await import('../../../workflows/subtask/hedge');
const { adoptHedge, bookHedge, hedgeAgentOf, hedgeNow } = await import('../../../workflows/subtask/hedge-book');
const { LoopHedge } = await import('../../../workflows/subtask/loop-hedge');
const { manifest, running, T0 } = await import('./fixtures');

const input = { agentId: 'agent-a', stepKey: 'job/t/j1/t1#0', step: 0, budgetLeft: {}, maxAttempts: 1 } as unknown as AgentStepInput;
let cancelled = false;
const options = { startToCloseTimeout: '1 minute', summary: 'the question' };
const hedged = (o: { delayMs?: number; decide?: () => boolean; latencyLeft?: number } = {}) =>
  runHedged({
    options,
    input,
    delayMs: o.delayMs ?? 300,
    prepare: () => Promise.resolve((o.decide ?? (() => true))() ? sameAgentHedge({ options, input }) : undefined),
    latencyLeft: o.latencyLeft,
    cancelled: () => cancelled,
  });

beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
  fake.scripts.length = 0;
  fake.started.length = 0;
  fake.cancelledAt.length = 0;
  fake.stepLatency = () => Promise.resolve({ runs: 0 });
  fake.latencyAsked = 0;
  fake.warned.length = 0;
  cancelled = false;
});
afterEach(() => {
  vi.useRealTimers();
});

describe('a hedged step on a forced clock', () => {
  it('starts its hedge at exactly start + delay, not a millisecond before; the hedge answers first and the primary is cancelled then', async () => {
    fake.scripts.push({ ms: 3000, costPerSecond: 0.01 }, { ms: 200, out: { summary: 'the hedge' } });
    const run = hedged({ delayMs: 300 });
    await vi.advanceTimersByTimeAsync(299);
    expect(fake.started).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fake.started.map((s) => s.at - T0)).toEqual([0, 300]);
    expect(fake.started[1].input.stepKey).toBe('job/t/j1/t1#0:hedge');
    await vi.advanceTimersByTimeAsync(200);
    const r = await run;
    expect(r).toMatchObject({ hedged: true, hedgeWon: true, outcome: { kind: 'ok', out: { summary: 'the hedge' } } });
    // the primary is cut when the hedge answers, and booked at what the answer cost (it had not said yet)
    expect(fake.cancelledAt).toEqual([{ stepKey: 'job/t/j1/t1#0', at: T0 + 500 }]);
    expect(r.loser).toEqual({ usage: { costUsd: 0.01, tokens: 100, toolCalls: 0 }, attempts: 1 });
  });

  it('runs no hedge when the step answers before its delay', async () => {
    fake.scripts.push({ ms: 250 });
    const run = hedged({ delayMs: 300 });
    await vi.advanceTimersByTimeAsync(1000);
    expect(await run).toMatchObject({ hedged: false, outcome: { kind: 'ok' } });
    expect(fake.started).toHaveLength(1);
    expect(fake.cancelledAt).toEqual([]);
  });

  it('runs no hedge when the decision at the due time says no, and waits for the step alone', async () => {
    fake.scripts.push({ ms: 3000 });
    const asked: number[] = [];
    const run = hedged({
      delayMs: 300,
      decide: () => {
        asked.push(Date.now() - T0);
        return false;
      },
    });
    await vi.advanceTimersByTimeAsync(3000);
    expect(await run).toMatchObject({ hedged: false, outcome: { kind: 'ok' } });
    expect(asked).toEqual([300]);
    expect(fake.started).toHaveLength(1);
  });

  it('keeps the primary when it answers first after the hedge started, and cancels the hedge', async () => {
    fake.scripts.push({ ms: 400, out: { summary: 'primary' } }, { ms: 1000 });
    const run = hedged({ delayMs: 300 });
    await vi.advanceTimersByTimeAsync(400);
    expect(await run).toMatchObject({ hedged: true, hedgeWon: false, outcome: { out: { summary: 'primary' } } });
    expect(fake.cancelledAt).toEqual([{ stepKey: 'job/t/j1/t1#0:hedge', at: T0 + 400 }]);
  });

  it('takes the other answer when the first to end failed; both failing is the primary failure, the hedge booked', async () => {
    fake.scripts.push({ ms: 350, fail: 'boom' }, { ms: 200, out: { summary: 'hedge' } });
    let run = hedged({ delayMs: 300 });
    await vi.advanceTimersByTimeAsync(500);
    expect(await run).toMatchObject({ hedged: true, hedgeWon: true, outcome: { out: { summary: 'hedge' } }, loser: { attempts: 1 } });

    fake.scripts.push({ ms: 350, fail: 'first' }, { ms: 200, fail: 'second' });
    run = hedged({ delayMs: 300 });
    await vi.advanceTimersByTimeAsync(500);
    const r = await run;
    expect(r).toMatchObject({ hedged: true, outcome: { kind: 'failed', failure: { message: 'first' } } });
  });

  it('a cancel cuts both steps and books what each said it spent', async () => {
    fake.scripts.push({ ms: 5000, costPerSecond: 0.01 }, { ms: 5000, costPerSecond: 0.01 });
    const run = hedged({ delayMs: 300 });
    await vi.advanceTimersByTimeAsync(1300);
    cancelled = true;
    fake.recheck();
    const r = await run;
    expect(r.outcome.kind).toBe('cancel');
    expect(r.outcome.kind === 'cancel' && r.outcome.usage?.costUsd).toBeCloseTo(0.013);
    expect(r.loser?.usage?.costUsd).toBeCloseTo(0.01);
    expect(fake.cancelledAt.map((c) => c.at - T0)).toEqual([1300, 1300]);
  });

  describe('when the primary ends or a cut comes while prepare() is awaited (it may resolve the hedge agent)', () => {
    /** A prepare() that answers `ms` later with the same-agent hedge, running `then` just before. */
    const slowPrepare = (ms: number, then = () => {}) =>
      runHedged({
        options,
        input,
        delayMs: 300,
        prepare: () =>
          new Promise((resolve) =>
            setTimeout(() => {
              then();
              resolve(sameAgentHedge({ options, input }));
            }, ms),
          ),
        cancelled: () => cancelled,
      });

    it('starts no hedge and books nothing when the primary answered meanwhile', async () => {
      fake.scripts.push({ ms: 400, out: { summary: 'primary' } }, { ms: 1000 });
      const run = slowPrepare(200);
      await vi.advanceTimersByTimeAsync(1000);
      const r = await run;
      expect(r).toMatchObject({ hedged: false, outcome: { kind: 'ok', out: { summary: 'primary' } } });
      expect(fake.started).toHaveLength(1);
      const s = running();
      bookHedge(s, r);
      expect(s).toMatchObject({ hedges: 0, hedgeCostUsd: 0, attempts: 0 });
      expect(s.ledger.spent.costUsd).toBe(0);
    });

    it('starts no hedge when the cancel signal came meanwhile, and cuts the primary alone', async () => {
      fake.scripts.push({ ms: 3000 }, { ms: 1000 });
      const run = slowPrepare(200);
      await vi.advanceTimersByTimeAsync(400);
      cancelled = true;
      fake.recheck();
      await vi.advanceTimersByTimeAsync(200);
      const r = await run;
      expect(r).toMatchObject({ hedged: false, outcome: { kind: 'cancel' } });
      expect(fake.started).toHaveLength(1);
    });

    it('starts no hedge when the cancel came with the answer of prepare(), before the condition saw it', async () => {
      fake.scripts.push({ ms: 3000 }, { ms: 1000 });
      const run = slowPrepare(200, () => (cancelled = true));
      await vi.advanceTimersByTimeAsync(500);
      fake.recheck();
      const r = await run;
      expect(r).toMatchObject({ hedged: false, outcome: { kind: 'cancel' } });
      expect(fake.started).toHaveLength(1);
    });
  });

  it('the latency budget cuts both as well', async () => {
    fake.scripts.push({ ms: 5000 }, { ms: 5000 });
    const run = hedged({ delayMs: 300, latencyLeft: 2 });
    await vi.advanceTimersByTimeAsync(2000);
    expect((await run).outcome.kind).toBe('latency');
  });
});

describe('the hedge on the state', () => {
  it('is due at start + delay and stops at maxExtraCost or the budget', () => {
    const s = running({ allocation: { costUsd: 0.05 } });
    const spec = { maxExtraCost: 0.02 };
    const at = { startedAt: T0, delayMs: 300 };
    const measured = { runs: 10, delayMs: 300, stepCostUsd: 0.01 };
    expect(hedgeNow(s, spec, measured, { ...at, now: T0 + 299 })).toEqual({ hedge: false, why: 'not_due' });
    expect(hedgeNow(s, spec, measured, { ...at, now: T0 + 300 })).toEqual({ hedge: true });
    bookHedge(s, { hedged: true, loser: { usage: { costUsd: 0.015, tokens: 10, toolCalls: 0 }, attempts: 1 } });
    expect(s).toMatchObject({ hedges: 1, hedgeCostUsd: 0.015, attempts: 1 });
    expect(s.ledger.spent.costUsd).toBeCloseTo(0.015);
    // 0.015 + a step of 0.01 passes 0.02
    expect(hedgeNow(s, spec, measured, { ...at, now: T0 + 300 })).toEqual({ hedge: false, why: 'max_extra_cost' });
    // the budget: 0.05 − 0.015 left, two steps of 0.02 do not fit
    s.hitl.lastCostUsd = 0.02;
    expect(hedgeNow(s, { maxExtraCost: 1 }, measured, { ...at, now: T0 + 300 })).toEqual({ hedge: false, why: 'budget' });
  });
});

describe('a hedge on another agent', () => {
  it('is for a step the agent starts afresh; later steps, or the agent itself, hedge on the same agent', () => {
    const s = running();
    expect(hedgeAgentOf(s, { maxExtraCost: 1, agent: 'agent-b' })).toBe('agent-b');
    expect(hedgeAgentOf(s, { maxExtraCost: 1 })).toBeUndefined();
    expect(hedgeAgentOf(s, { maxExtraCost: 1, agent: 'agent-a' })).toBeUndefined();
    s.agentState = { messages: [] };
    expect(hedgeAgentOf(s, { maxExtraCost: 1, agent: 'agent-b' })).toBeUndefined();
  });

  it('hands the task to the hedge agent when its answer wins, with a note and the routing reason', () => {
    const s = running();
    adoptHedge(s, manifest({ id: 'agent-b' }));
    expect(s).toMatchObject({ agentId: 'agent-b', manifest: { id: 'agent-b' }, agentStartStep: 0, routing: { agent: 'agent-b' } });
    expect(s.notes).toEqual(['hedge: agent-b answered step 0 before agent-a; the task goes on with it']);
  });

  it('starts the hedge call prepare() gives: its own agent and step key', async () => {
    fake.scripts.push({ ms: 3000 }, { ms: 100, out: { summary: 'b' } });
    const other = {
      options: { ...options, taskQueue: 'q-provider-p' },
      input: { ...input, agentId: 'agent-b', stepKey: `${input.stepKey}@agent-b:hedge` },
    };
    const run = runHedged({ options, input, delayMs: 300, prepare: () => Promise.resolve(other), cancelled: () => false });
    await vi.advanceTimersByTimeAsync(400);
    expect(await run).toMatchObject({ hedged: true, hedgeWon: true, hedgeAgent: 'agent-b', outcome: { out: { summary: 'b' } } });
    expect(fake.started.map((x) => x.input.agentId)).toEqual(['agent-a', 'agent-b']);
  });
});

describe("a hedged step's delay", () => {
  const run = { inbox: { tenant: 'acme' }, input: { jobId: 'j1' }, task: { id: 't1' } } as unknown as ConstructorParameters<
    typeof LoopHedge
  >[0];
  const loopHedge = () =>
    new LoopHedge(run, running(), { maxExtraCost: 1, afterMs: 700 }, { stepQueue: () => undefined, adopted: () => {} });

  it("is the agent's measured quantile, read once per run and agent", async () => {
    fake.stepLatency = () => Promise.resolve({ runs: 10, delayMs: 250 });
    const h = loopHedge();
    expect(await h.delay()).toBe(250);
    expect(await h.delay()).toBe(250);
    expect(fake.latencyAsked).toBe(1);
  });

  it('falls back to afterMs, with a warning, when the look-up fails, and does not ask again for that agent', async () => {
    fake.stepLatency = () => Promise.reject(new Error('the record is down'));
    const h = loopHedge();
    expect(await h.delay()).toBe(700);
    expect(await h.delay()).toBe(700);
    expect(fake.latencyAsked).toBe(1);
    expect(fake.warned).toHaveLength(1);
  });

  it('is no fallback for a cancel: the run stays cancelled', async () => {
    fake.stepLatency = () => Promise.reject(new fake.Cancelled('cancelled'));
    await expect(loopHedge().delay()).rejects.toThrow('cancelled');
    expect(fake.warned).toEqual([]);
  });
});

describe("a hedge's books", () => {
  it('adds the answers not taken in whole micro-dollars: 0.1 and 0.2 make 0.3, not float dust', () => {
    const s = running();
    for (const costUsd of [0.1, 0.2])
      bookHedge(s, { hedged: true, loser: { attempts: 1, usage: { costUsd, tokens: 0, toolCalls: 0 } } } as never);
    expect(s).toMatchObject({ hedges: 2, hedgeCostUsd: 0.3, attempts: 2 });
  });
});
