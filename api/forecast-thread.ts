/**
 * A small pool of worker threads that run forecasts (the Monte Carlo and admission's re-plan), so
 * a tenant's 10,000-task estimate spends a thread, never the API's event loop that answers every
 * other tenant. The pattern of activities/schema-thread.ts, with a cap per tenant that refuses:
 *
 *   forTenant ──more than perTenant in flight? 429 + Retry-After──> queue ──> idle thread ──reply──> outcome
 *                                                                  │ past timeoutMs: terminated ──> 503, thread replaced
 *                                                                  │ past maxHeapMb: V8 ends it  ──> 503, thread replaced
 *
 * A tenant runs on at most `size - 1` threads at once, so another tenant always finds one within
 * a single forecast's bound. Every thread starts with the first call (about a second: a thread
 * loads tsx and the forecast modules); idle threads do not hold the process.
 */
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { HttpProblem } from './errors';
import type { ForecastOutcome, ForecastWork } from './forecast-thread-replan';

/** One request to a thread. */
export interface ForecastRequest {
  id: number;
  work: ForecastWork;
}
/** A thread's answer. */
export type ForecastReply = { id: number; ok: true; outcome: ForecastOutcome } | { id: number; ok: false; error: string };

/** Bounds of a pool. */
export interface ForecastThreadsOptions {
  /** Threads. @default 2 to 4, one less than the cores */
  size?: number;
  /** Longest one forecast (an estimate, or an admission check with its re-plan) may run before its thread is ended. @default 15000 */
  timeoutMs?: number;
  /** Largest heap of one thread, in MB. @default 512 */
  maxHeapMb?: number;
  /** Forecasts one tenant may have running or waiting at once; past it, 429. @default 2 */
  perTenant?: number;
  /** Longest a thread may take to start. @default 30000 */
  startTimeoutMs?: number;
}

interface Call {
  work: ForecastWork;
  tenant: string;
  done: (o: ForecastOutcome) => void;
  fail: (e: Error) => void;
}

interface Slot {
  worker?: Worker;
  ready?: Promise<void>;
  call?: Call;
  timer?: NodeJS.Timeout;
}

/** How long a tenant past its cap is asked to wait. */
const RETRY_AFTER_SECONDS = 5;

/** The thread's boot: registers tsx inside the thread (the parent may run under any loader), then loads the entry. */
function bootScript(): string {
  // the ESM build of tsx's API (its CommonJS one cannot be imported from a thread under tsx's own loader)
  const tsx = pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  const entry = new URL('./forecast-thread-main.ts', import.meta.url).href;
  return `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
}

const unavailable = (detail: string) =>
  new HttpProblem(503, 'Forecast unavailable', detail, undefined, { 'retry-after': String(RETRY_AFTER_SECONDS) });

/** A pool of forecast threads within the bounds given. */
export function createForecastThreads({
  size = Math.max(2, Math.min(4, availableParallelism() - 1)),
  timeoutMs = 15_000,
  maxHeapMb = 512,
  perTenant = 2,
  startTimeoutMs = 30_000,
}: ForecastThreadsOptions = {}) {
  const slots: Slot[] = Array.from({ length: size }, () => ({}));
  const queue: Call[] = [];
  /** Per tenant: forecasts in flight (running or waiting), and running on a thread. */
  const inFlight = new Map<string, number>();
  const running = new Map<string, number>();
  const threadsPerTenant = Math.max(1, size - 1);
  let boot: string | undefined;
  let nextId = 0;
  let closed = false;

  const settle = (slot: Slot, answer: (call: Call) => void) => {
    const call = slot.call;
    if (!call) return;
    clearTimeout(slot.timer);
    slot.call = undefined;
    slot.worker?.unref();
    running.set(call.tenant, (running.get(call.tenant) ?? 1) - 1);
    answer(call);
    pump();
  };

  /** Ends a slot's thread, its call failing with `err`; a thread stopped at a bound is replaced at once. */
  const kill = (slot: Slot, err: Error) => {
    const worker = slot.worker;
    slot.worker = undefined;
    slot.ready = undefined;
    void worker?.terminate();
    if (!closed) void start(slot);
    settle(slot, (call) => call.fail(err));
  };

  const start = (slot: Slot): Promise<void> => {
    const worker = new Worker((boot ??= bootScript()), {
      eval: true,
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: maxHeapMb, maxYoungGenerationSizeMb: Math.min(64, maxHeapMb / 4) },
    });
    slot.worker = worker;
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`a forecast thread did not start within ${startTimeoutMs} ms`)),
        startTimeoutMs,
      ).unref();
      worker.on('message', (m: ForecastReply | { ready: true }) => {
        if ('ready' in m) {
          clearTimeout(timer);
          return resolve();
        }
        if (slot.worker !== worker) return;
        settle(slot, (call) => (m.ok ? call.done(m.outcome) : call.fail(new Error(m.error))));
      });
      const gone = (why: string) => {
        clearTimeout(timer);
        reject(new Error(why));
        if (slot.worker === worker) kill(slot, unavailable(why));
      };
      worker.on('error', (err: Error & { code?: string }) =>
        gone(
          err.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? `the forecast passed its memory bound of ${maxHeapMb} MB and was stopped: forecast a smaller job`
            : 'the forecast thread failed',
        ),
      );
      worker.on('exit', () => gone('the forecast thread stopped'));
      // after the listeners: adding a 'message' listener refs the thread again, and an idle thread must not hold the process
      worker.unref();
    });
    ready.catch(() => undefined);
    slot.ready = ready;
    return ready;
  };

  const assign = (slot: Slot, call: Call) => {
    slot.call = call;
    running.set(call.tenant, (running.get(call.tenant) ?? 0) + 1);
    const ready = slot.ready ?? start(slot);
    const worker = slot.worker!;
    // a call in flight holds the process (its caller waits on it); an idle thread does not
    worker.ref();
    ready.then(
      () => {
        if (slot.worker !== worker || slot.call !== call) return;
        slot.timer = setTimeout(() => {
          if (slot.call === call)
            kill(
              slot,
              unavailable(`the forecast passed its bound of ${timeoutMs} ms and was stopped: retry later, or forecast a smaller job`),
            );
        }, timeoutMs).unref();
        worker.postMessage({ id: ++nextId, work: call.work } satisfies ForecastRequest);
      },
      (err: Error) => {
        if (slot.call === call) kill(slot, unavailable(err.message));
      },
    );
  };

  function pump() {
    for (let i = 0; i < queue.length; i++) {
      const call = queue[i];
      if ((running.get(call.tenant) ?? 0) >= threadsPerTenant) continue;
      const slot = slots.find((s) => !s.call);
      if (!slot) return;
      queue.splice(i--, 1);
      assign(slot, call);
    }
  }

  const run = (tenant: string, work: ForecastWork): Promise<ForecastOutcome> => {
    if (closed) return Promise.reject(unavailable('forecast threads are closed'));
    // every thread starts with the first call: a later call (another tenant's) never waits for a start
    for (const slot of slots) if (!slot.worker) void start(slot);
    return new Promise((done, fail) => {
      queue.push({ work, tenant, done, fail });
      pump();
    });
  };

  return {
    /**
     * Runs `f` with the tenant's place in the pool: 429 at once when the tenant already has
     * `perTenant` forecasts running or waiting. Take the place before any costly preparation,
     * so a refused request costs nothing; `f` may forecast once or more through `forecast`.
     */
    async forTenant<T>(tenant: string, f: (forecast: (work: ForecastWork) => Promise<ForecastOutcome>) => Promise<T>): Promise<T> {
      const n = inFlight.get(tenant) ?? 0;
      if (n >= perTenant)
        throw new HttpProblem(
          429,
          'Too many forecasts',
          `tenant has ${n} forecast(s) running or waiting, at most ${perTenant} at once; retry in ${RETRY_AFTER_SECONDS} s`,
          undefined,
          { 'retry-after': String(RETRY_AFTER_SECONDS) },
        );
      inFlight.set(tenant, n + 1);
      try {
        return await f((work) => run(tenant, work));
      } finally {
        const left = inFlight.get(tenant)! - 1;
        if (left > 0) inFlight.set(tenant, left);
        else inFlight.delete(tenant);
      }
    },
    /** Ends every thread; calls after this fail at once. */
    close(): void {
      closed = true;
      for (const slot of slots) kill(slot, unavailable('forecast threads are closed'));
      for (const call of queue.splice(0)) call.fail(unavailable('forecast threads are closed'));
    },
    /** Threads running now and calls waiting (for tests and metrics). */
    stats: () => ({ threads: slots.filter((s) => s.worker).length, busy: slots.filter((s) => s.call).length, queued: queue.length }),
  };
}

/** The forecast threads a process shares: estimates and admission checks of every tenant. */
export const forecastThreads = createForecastThreads();

/** The operations of a pool of forecast threads. */
export type ForecastThreads = ReturnType<typeof createForecastThreads>;
