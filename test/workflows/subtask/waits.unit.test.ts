/**
 * The waits (waits.ts) with the clock skipped: the workflow API is replaced by a fake whose
 * `condition(fn, timeout)` is a timer on vitest's fake clock, rechecked as an activation would
 * after a decision or a signal lands, and whose local activities record what the inbox is told.
 * A day-long wait takes no real second. Not the SDK's time skipping: createTimeSkipping()
 * downloads the Java test server (here "failed to download ephemeral server executable … dns
 * error"; no registry we reach ships it), pointed at our Temporal CLI it fails ("did not start
 * within 5s": the CLI is no test server), and createLocal() on the CLI runs but its sleep() is real.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const fake = vi.hoisted(() => {
  const waiters = new Set<{ fn: () => boolean; done: (v: boolean) => void }>();
  return {
    patched: true,
    calls: [] as { name: string; arg: Record<string, unknown> }[],
    /** An activation: every condition whose predicate now holds resolves. */
    recheck() {
      for (const w of waiters) if (w.fn()) w.done(true);
    },
    condition(fn: () => boolean, timeoutMs?: number): Promise<boolean> {
      if (fn()) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const timer = timeoutMs === undefined ? undefined : setTimeout(() => w.done(false), timeoutMs);
        const w = {
          fn,
          done: (v: boolean) => {
            clearTimeout(timer);
            waiters.delete(w);
            resolve(v);
          },
        };
        waiters.add(w);
      });
    },
  };
});

vi.mock('@temporalio/workflow', () => {
  const record = (name: string) => (arg: Record<string, unknown>) => {
    fake.calls.push({ name, arg });
    return Promise.resolve();
  };
  const define = (name: string) => ({ name });
  return {
    ApplicationFailure: { create: (o: object) => Object.assign(new Error('failure'), o) },
    condition: fake.condition,
    patched: () => fake.patched,
    proxyLocalActivities: () => ({
      openInboxItem: record('open'),
      settleInboxItem: record('settle'),
      appendJobEvents: record('events'),
    }),
    setHandler: () => undefined,
    uuid4: () => 'item-1',
    workflowInfo: () => ({ workflowId: 'job/t/j1/t1', typedSearchAttributes: { get: () => undefined } }),
    defineSignal: define,
    defineQuery: define,
    defineUpdate: define,
  };
});

const { waitForHuman, waitForTopUp } = await import('../../../workflows/subtask/waits');
const { applyDecision } = await import('../../../workflows/subtask/inbox');
const { running, T0 } = await import('./fixtures');

const target = { tenant: 't', jobId: 'j1', taskId: 't1', labels: [] };
const approval = { kind: 'approval' as const, reason: 'before_start' as const, detail: {} };
const DAY = 86_400;
const settled = () => fake.calls.find((c) => c.name === 'settle')?.arg.settle as { state: string; by: string; at: number } | undefined;
/** Lets the wait reach its condition (the item's open is a local activity). */
const opened = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
  fake.calls.length = 0;
  fake.patched = true;
});
afterEach(() => {
  vi.useRealTimers();
});

describe('waitForHuman', () => {
  it('waits out its timeout, a day of skipped time, and settles the item timed out', async () => {
    const s = running();
    const wait = waitForHuman(s, approval, { timeoutSeconds: DAY, onTimeout: 'fail' }, target, undefined);
    await opened();
    expect(fake.calls.map((c) => c.name)).toEqual(['open']);
    expect(s.phase).toBe('waiting_for_approval');
    await vi.advanceTimersByTimeAsync(DAY * 1000 - 1);
    expect(settled()).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await wait;
    expect(settled()).toEqual({ state: 'timed_out', by: 'timeout', at: T0 + DAY * 1000 });
    expect(s.hitl.decision).toBeUndefined();
  });

  it("ends at the job's deadline when that comes first", async () => {
    const wait = waitForHuman(running(), approval, { timeoutSeconds: DAY, onTimeout: 'fail' }, target, T0 + 10_000);
    await vi.advanceTimersByTimeAsync(10_000);
    await wait;
    expect(settled()).toMatchObject({ state: 'timed_out', at: T0 + 10_000 });
  });

  it('ends when the decision lands, and settles the item with it', async () => {
    const s = running();
    const wait = waitForHuman(s, approval, { timeoutSeconds: DAY, onTimeout: 'fail' }, target, undefined);
    await opened();
    await vi.advanceTimersByTimeAsync(3_600_000);
    applyDecision(s, { id: 'item-1', state: 'approved', by: 'ann', at: T0 + 3_600_000 });
    fake.recheck();
    const item = await wait;
    expect(item).toMatchObject({ id: 'item-1', expiresAt: T0 + DAY * 1000 });
    expect(settled()).toEqual({ state: 'approved', by: 'ann', at: T0 + 3_600_000 });
  });

  it('ends on a stop, settled cancelled by it', async () => {
    const s = running();
    const wait = waitForHuman(s, approval, { timeoutSeconds: DAY, onTimeout: 'fail' }, target, undefined);
    await opened();
    s.stopRequested = true;
    fake.recheck();
    await wait;
    expect(settled()).toMatchObject({ state: 'cancelled', by: 'stop', at: T0 });
  });
});

describe('waitForTopUp', () => {
  const spent = () => {
    const s = running({ allocation: { tokens: 10 } });
    s.ledger.spent.tokens = 10;
    return s;
  };
  const wait = (seconds: number, deadline?: number) => ({ seconds, target, deadline, ledger: () => ({}) });

  it('goes on when a top-up refills the budget during the wait (the item approved by it)', async () => {
    const s = spent();
    const waiting = waitForTopUp(s, wait(600));
    await opened();
    expect(fake.calls[0]).toMatchObject({ name: 'open', arg: { kind: 'budget', detail: { spent: ['tokens'] } } });
    await vi.advanceTimersByTimeAsync(120_000);
    s.ledger.limit.tokens = 20;
    fake.recheck();
    expect(await waiting).toBe(true);
    expect(settled()).toEqual({ state: 'approved', by: 'top-up', at: T0 + 120_000 });
    expect(s.phase).toBe('running');
  });

  it('gives up after budgetWaitSeconds of skipped time, or at once on a rejection', async () => {
    const s = spent();
    const waiting = waitForTopUp(s, wait(600));
    await vi.advanceTimersByTimeAsync(600_000);
    expect(await waiting).toBe(false);
    expect(settled()).toMatchObject({ state: 'timed_out', at: T0 + 600_000 });

    fake.calls.length = 0;
    const r = spent();
    const rejected = waitForTopUp(r, wait(600));
    await opened();
    applyDecision(r, { id: 'item-1', state: 'rejected', by: 'ann', at: T0 + 600_000 });
    fake.recheck();
    expect(await rejected).toBe(false);
    expect(r.notes).toEqual(['budget wait rejected by ann']);
  });

  it('before the inbox item (an old run replaying): a plain condition, bounded by the deadline', async () => {
    fake.patched = false;
    const s = spent();
    const waiting = waitForTopUp(s, wait(600, T0 + 30_000));
    expect(s.phase).toBe('waiting_for_budget');
    await vi.advanceTimersByTimeAsync(30_000);
    expect(await waiting).toBe(false);
    expect([s.phase, fake.calls]).toEqual(['running', []]);
  });
});
