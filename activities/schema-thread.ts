/**
 * A small pool of worker threads that compile and validate outputSchemas, each call bounded in
 * time and heap, so a hostile schema (or data that makes a schema costly) spends a thread and
 * fails its own task, never the shared event loop of the worker or the API:
 *
 *   call ──queue (per-owner cap)──> idle thread ──reply──> verdict
 *                                      │ past timeoutMs: terminated ──> { ok: false, "passed its bound" }
 *                                      │ past maxHeapMb: V8 ends it  ──> { ok: false, "out of memory" }
 *                                      └ the next call starts a fresh thread
 *
 * An owner (a tenant) holds at most `size - 1` threads at once, so another owner always finds
 * one within a single call's bound. Every thread starts with the first call (about a second:
 * a thread loads tsx and Ajv), a thread stopped at a bound is replaced at once, and threads keep
 * compiled validators (keyed by the schema's hash) between calls. A schema that compiled is
 * remembered by the pool (its last 256, each under 64 KiB of JSON): asked again, as each step
 * of a task asks, `compile` answers at once without a thread.
 */
import { LRUCache } from 'lru-cache';
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/** One piece of work for a thread. */
export type SchemaWork =
  { op: 'compile'; schema: Record<string, unknown> } | { op: 'validate'; schema: Record<string, unknown>; data: unknown };
/** One request to a thread: the work and its id. */
export type SchemaRequest = SchemaWork & { id: number };
/** A thread's answer: the schema compiles (and `why` the data fails it, null when it passes), or why not. */
export type SchemaReply = { id: number; ok: true; why: string | null } | { id: number; ok: false; error: string; compiles: boolean };
/** What a call answers (the thread's reply without its id); `compiles: true` with `ok: false` means the check itself was stopped. */
export type SchemaVerdict = { ok: true; why: string | null } | { ok: false; error: string; compiles: boolean };

/** Bounds of a pool. */
export interface SchemaThreadsOptions {
  /** Threads. @default 2 to 4, one less than the cores */
  size?: number;
  /** Longest one compile or validation may run before its thread is ended (a thread's start-up does not count). @default 5000 */
  timeoutMs?: number;
  /** Largest heap of one thread, in MB: past it the thread ends and the call fails. @default 256 */
  maxHeapMb?: number;
  /** Longest a thread may take to start. @default 30000 */
  startTimeoutMs?: number;
}

/** Per-call options. */
export interface SchemaCallOptions {
  /** Whose work this is (a tenant): an owner holds at most `size - 1` threads. @default "unknown" */
  owner?: string;
  /** Drops the call while it still waits for a thread. */
  signal?: AbortSignal;
}

interface Call {
  req: SchemaWork;
  owner: string;
  signal?: AbortSignal;
  done: (v: SchemaVerdict) => void;
}

interface Slot {
  worker?: Worker;
  ready?: Promise<void>;
  call?: Call;
}

/** A schema this long (as JSON) or longer is not remembered as compiling: it is checked in a thread each time. */
const MAX_REMEMBERED_CHARS = 64 * 1024;
/** Schemas remembered as compiling, per pool. */
const MAX_REMEMBERED = 256;

/** The thread's boot: registers tsx inside the thread (the parent may run under any loader), then loads the entry. */
function bootScript(): string {
  // the ESM build of tsx's API (its CommonJS one cannot be imported from a thread under tsx's own loader)
  const tsx = pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  const entry = new URL('./schema-thread-main.ts', import.meta.url).href;
  return `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
}

/** A pool of schema threads within the bounds given. */
export function createSchemaThreads({
  size = Math.max(2, Math.min(4, availableParallelism() - 1)),
  timeoutMs = 5000,
  maxHeapMb = 256,
  startTimeoutMs = 30_000,
}: SchemaThreadsOptions = {}) {
  const slots: Slot[] = Array.from({ length: size }, () => ({}));
  const queue: Call[] = [];
  const running = new Map<string, number>();
  const perOwner = Math.max(1, size - 1);
  const watched = new WeakSet<AbortSignal>();
  let nextId = 0;
  let closed = false;
  // the same for every thread: resolved at the first start, not at each
  let boot: string | undefined;
  // schemas (as JSON) a thread compiled: every step of a task asks again, and is answered here
  // without a thread's round trip or a wait behind another owner's calls (a Set iterates oldest first)
  const compiling = new LRUCache<string, true>({ max: MAX_REMEMBERED });

  const callTimer = new Map<Slot, NodeJS.Timeout>();
  const settle = (slot: Slot, verdict: SchemaVerdict) => {
    const call = slot.call;
    if (!call) return;
    clearTimeout(callTimer.get(slot));
    slot.call = undefined;
    slot.worker?.unref();
    running.set(call.owner, (running.get(call.owner) ?? 1) - 1);
    call.done(verdict);
    pump();
  };

  /** Ends a slot's thread; its call (if any) answers `verdict`. A thread stopped at a bound is replaced at once, so the next call does not wait for a start. */
  const kill = (slot: Slot, verdict: SchemaVerdict, replace = false) => {
    const worker = slot.worker;
    slot.worker = undefined;
    slot.ready = undefined;
    void worker?.terminate();
    if (replace && !closed) void start(slot);
    settle(slot, verdict);
  };

  const start = (slot: Slot): Promise<void> => {
    const worker = new Worker((boot ??= bootScript()), {
      eval: true,
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: maxHeapMb, maxYoungGenerationSizeMb: Math.min(64, maxHeapMb / 4), stackSizeMb: 4 },
    });
    slot.worker = worker;
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`a schema thread did not start within ${startTimeoutMs} ms`)),
        startTimeoutMs,
      ).unref();
      worker.on('message', (m: SchemaReply | { ready: true }) => {
        if ('ready' in m) {
          clearTimeout(timer);
          return resolve();
        }
        if (slot.worker === worker && slot.call) {
          const { id: _, ...verdict } = m;
          settle(slot, verdict);
        }
      });
      const gone = (why: string, err?: { code?: string }) => {
        clearTimeout(timer);
        reject(new Error(why));
        if (slot.worker === worker) kill(slot, { ok: false, error: why, compiles: true }, err?.code === 'ERR_WORKER_OUT_OF_MEMORY');
      };
      worker.on('error', (err: Error & { code?: string }) =>
        gone(
          err.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? `outputSchema check passed its memory bound of ${maxHeapMb} MB and was stopped`
            : `schema thread failed: ${err.message}`,
          err,
        ),
      );
      worker.on('exit', (code) => gone(`schema thread exited (${code})`));
      // after the listeners: adding a 'message' listener refs the thread again, and an idle thread must not hold the process
      worker.unref();
    });
    // the rejection is answered through the slot's call; nobody else awaits it
    ready.catch(() => undefined);
    slot.ready = ready;
    return ready;
  };

  const assign = (slot: Slot, call: Call) => {
    slot.call = call;
    running.set(call.owner, (running.get(call.owner) ?? 0) + 1);
    const ready = slot.ready ?? start(slot);
    const worker = slot.worker!;
    // a call in flight holds the process (its caller waits on it); an idle thread does not
    worker.ref();
    ready.then(
      () => {
        if (slot.worker !== worker || slot.call !== call) return;
        callTimer.set(
          slot,
          setTimeout(() => {
            if (slot.call !== call) return;
            const what = call.req.op === 'validate' ? 'validation' : 'compilation';
            kill(
              slot,
              {
                ok: false,
                error: `outputSchema ${what} passed its bound of ${timeoutMs} ms and was stopped: the schema (or the data against it) is too costly to check`,
                compiles: call.req.op === 'validate',
              },
              true,
            );
          }, timeoutMs).unref(),
        );
        try {
          worker.postMessage({ ...call.req, id: ++nextId });
        } catch (err) {
          // the data cannot even be copied (nested past the stack): a verdict on it, the thread is fine
          settle(slot, {
            ok: false,
            error: `outputSchema validation could not take the data: ${err instanceof Error ? err.message : String(err)}`,
            compiles: true,
          });
        }
      },
      (err: Error) => {
        if (slot.call === call) kill(slot, { ok: false, error: err.message, compiles: true });
      },
    );
  };

  function pump() {
    for (let i = 0; i < queue.length; i++) {
      const call = queue[i];
      if (call.signal?.aborted) {
        queue.splice(i--, 1);
        call.done({ ok: false, error: 'outputSchema check abandoned', compiles: true });
        continue;
      }
      if ((running.get(call.owner) ?? 0) >= perOwner) continue;
      const slot = slots.find((s) => !s.call);
      if (!slot) return;
      queue.splice(i--, 1);
      assign(slot, call);
    }
  }

  const run = (req: SchemaWork, { owner = 'unknown', signal }: SchemaCallOptions): Promise<SchemaVerdict> => {
    if (closed) return Promise.resolve({ ok: false, error: 'schema threads are closed', compiles: true });
    // every thread starts with the first call: a later call (another tenant's) never waits for a start
    for (const slot of slots) if (!slot.worker) void start(slot);
    return new Promise((done) => {
      const call = { req, owner, signal, done };
      queue.push(call);
      // one listener per signal, however many calls share it (a request's compiles do)
      if (signal && !watched.has(signal)) {
        watched.add(signal);
        signal.addEventListener('abort', () => pump(), { once: true });
      }
      pump();
    });
  };

  return {
    /** Whether the schema compiles (`ok`), or why not; a schema that compiled lately is answered without a thread. */
    async compile(schema: Record<string, unknown>, opts: SchemaCallOptions = {}): Promise<SchemaVerdict> {
      const json = JSON.stringify(schema);
      if (!closed && !opts.signal?.aborted && compiling.get(json)) return { ok: true, why: null };
      const verdict = await run({ op: 'compile', schema }, opts);
      if (verdict.ok && json.length < MAX_REMEMBERED_CHARS) {
        compiling.set(json, true);
      }
      return verdict;
    },
    /** Checks data against the schema: `why` it fails (null when it passes), or why the check could not finish. */
    validate: (schema: Record<string, unknown>, data: unknown, opts: SchemaCallOptions = {}) => run({ op: 'validate', schema, data }, opts),
    /** Ends every thread; calls after this answer at once that the pool is closed. */
    close(): void {
      closed = true;
      for (const slot of slots) kill(slot, { ok: false, error: 'schema threads are closed', compiles: true });
      for (const call of queue.splice(0)) call.done({ ok: false, error: 'schema threads are closed', compiles: true });
    },
    /** Threads running now and calls waiting (for tests and metrics). */
    stats: () => ({ threads: slots.filter((s) => s.worker).length, busy: slots.filter((s) => s.call).length, queued: queue.length }),
  };
}

/** The pool a process shares: the worker's agent steps and the API's submission check. */
export const schemaThreads = createSchemaThreads();
