/**
 * One follower per job, shared by every open stream of it (SSE, A2A, MCP progress): one read of
 * the record every `pollMs` and one "is it over" question to Temporal every `endedEvery` polls,
 * fanned out to the job's subscribers, however many there are. A subscriber that joins behind
 * the follower (a resume from an early Last-Event-ID, a replay from the start) reads the record
 * itself up to where the follower was when it joined, then takes what the follower reads.
 *
 *   stream ─┐  catch-up: after(seq) .. head at join (its own reads, once)
 *   stream ─┼──────────── follower(tenant, job) ── after(head) every pollMs ──> record
 *   stream ─┘             (pushes each event to every subscriber; ends them after job.finished)
 *                                                └─ ended() every endedEvery polls ──> Temporal
 */
import type { JobEvent } from '../../schemas';

/** What the followers read, and how often. */
export interface JobFollowersOptions {
  /** The job's events after `seq`, in order, at most `limit` (the record's `events.after`). */
  after(tenant: string, jobId: string, seq: number, limit?: number): Promise<JobEvent[]>;
  /** Whether the job is over (a terminated job never writes job.finished). */
  ended(tenant: string, jobId: string): Promise<boolean>;
  /** Between two reads of a job's events. @default 200 */
  pollMs?: number;
  /** Ask `ended` once every this many reads. @default 10 */
  endedEvery?: number;
  /** Events read at once. @default 500 */
  page?: number;
}

/** One open stream: what the follower pushed and it has not taken yet. */
interface Subscriber {
  queue: JobEvent[];
  /** The follower is done: nothing more comes after the queue (`error` says why, when it failed). */
  ended: boolean;
  error?: unknown;
  wake?: () => void;
}

interface Follower {
  /** The last seq the follower read: every later event reaches every subscriber. */
  head: number;
  subscribers: Set<Subscriber>;
  /** Cuts the follower's pause short (its last subscriber left). */
  wake?: () => void;
}

/** An async generator that runs `close` once, however it ends: done, thrown, or returned before it started. */
export function onClose<T>(inner: AsyncGenerator<T>, close: () => void): AsyncGenerator<T> {
  let closed = false;
  const done = () => {
    if (closed) return;
    closed = true;
    close();
  };
  const self: AsyncGenerator<T> = {
    async next() {
      try {
        const r = await inner.next();
        if (r.done) done();
        return r;
      } catch (err) {
        done();
        throw err;
      }
    },
    async return(value) {
      done();
      return inner.return(value);
    },
    async throw(err) {
      done();
      return inner.throw(err);
    },
    [Symbol.asyncIterator]: () => self,
  };
  return self;
}

/** The shared followers of one API process. */
export function createJobFollowers(o: JobFollowersOptions) {
  const pollMs = o.pollMs ?? 200;
  const endedEvery = o.endedEvery ?? 10;
  const page = o.page ?? 500;
  const followers = new Map<string, Follower>();

  /** Ends every subscriber of `f` (after what they have queued) and forgets `f`: a later stream starts a new one. */
  function finish(key: string, f: Follower, error?: unknown): void {
    if (followers.get(key) === f) followers.delete(key);
    for (const s of f.subscribers) {
      s.ended = true;
      s.error = error;
      s.wake?.();
    }
  }

  async function run(key: string, f: Follower, tenant: string, jobId: string): Promise<void> {
    let reads = 0;
    try {
      while (f.subscribers.size > 0) {
        const events = await o.after(tenant, jobId, f.head, page);
        for (const e of events) {
          f.head = e.seq;
          for (const s of f.subscribers) {
            s.queue.push(e);
            s.wake?.();
          }
          if (e.type === 'job.finished') return finish(key, f);
        }
        if (events.length === page) continue;
        // a job that ended without a result (terminated) never writes job.finished: ask now and then, for all
        if (++reads % endedEvery === 0 && (await o.ended(tenant, jobId)) && (await o.after(tenant, jobId, f.head, 1)).length === 0)
          return finish(key, f);
        if (f.subscribers.size === 0) break;
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, pollMs);
          f.wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
        f.wake = undefined;
      }
      // the last subscriber left: forget the follower in the same tick, so no new one joins it
      finish(key, f);
    } catch (err) {
      finish(key, f, err);
    }
  }

  /** The events of one subscriber: its own catch-up to `joinedAt`, then what the follower pushes. */
  async function* stream(
    tenant: string,
    jobId: string,
    seq: number,
    s: Subscriber,
    joinedAt: number,
    signal?: AbortSignal,
  ): AsyncGenerator<JobEvent> {
    let last = seq;
    // behind the follower: the events up to where it was when this one joined (later ones are queued)
    let behind = last < joinedAt;
    while (behind && !signal?.aborted) {
      const events = await o.after(tenant, jobId, last, page);
      behind = events.length === page;
      for (const e of events) {
        if (e.seq > joinedAt) {
          behind = false;
          break;
        }
        last = e.seq;
        yield e;
        if (e.type === 'job.finished') return;
      }
    }
    while (!signal?.aborted) {
      const e = s.queue.shift();
      if (e) {
        if (e.seq <= last) continue;
        last = e.seq;
        yield e;
        if (e.type === 'job.finished') return;
        continue;
      }
      if (s.ended) {
        if (s.error !== undefined) throw s.error;
        return;
      }
      await new Promise<void>((resolve) => (s.wake = resolve));
      s.wake = undefined;
    }
  }

  return {
    /**
     * Follows a job's events after `seq` until its `job.finished` (or the job is over with nothing
     * more to come, or `signal` aborts). Joins the job's follower now, at the call: events written
     * from here on are never missed, even before the first `next()`. Call `return()` (a `for await`
     * does) to leave; a subscriber that never iterates leaves when `signal` aborts.
     */
    subscribe(tenant: string, jobId: string, seq: number, signal?: AbortSignal): AsyncGenerator<JobEvent> {
      const key = `${tenant}\u0000${jobId}`;
      let f = followers.get(key);
      const started = !f;
      if (!f) {
        f = { head: seq, subscribers: new Set() };
        followers.set(key, f);
      }
      const follower = f;
      const s: Subscriber = { queue: [], ended: false };
      follower.subscribers.add(s);
      const joinedAt = follower.head;
      const leave = () => {
        signal?.removeEventListener('abort', leave);
        follower.subscribers.delete(s);
        // a stream left while it waited (return() during a next()) must not wait on
        s.ended = true;
        s.wake?.();
        if (follower.subscribers.size === 0) follower.wake?.();
      };
      if (signal?.aborted) leave();
      else signal?.addEventListener('abort', leave, { once: true });
      if (started) void run(key, follower, tenant, jobId);
      return onClose(stream(tenant, jobId, seq, s, joinedAt, signal), leave);
    },
    /** Jobs followed now, and their open subscribers (metrics, tests). */
    size(): { jobs: number; subscribers: number } {
      let subscribers = 0;
      for (const f of followers.values()) subscribers += f.subscribers.size;
      return { jobs: followers.size, subscribers };
    },
  };
}

/** The shared followers' interface. */
export type JobFollowers = ReturnType<typeof createJobFollowers>;
