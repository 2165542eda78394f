/**
 * A job's live events as an async iterator over `GET /v1/jobs/:jobId/events` (SSE). The
 * stream is parsed by `eventsource-parser`; a dropped connection is resumed with
 * `Last-Event-ID` (the seq of the last event seen), so no event is lost or repeated; the
 * iterator ends after `job.finished`.
 *
 *   connect (Last-Event-ID: seq) ──events──> yield, seq = e.seq ──job.finished──> done
 *        ^                                       │ connection dropped / 5xx / network error
 *        └────────────── backoff (reset by every event) ◄─┘   (4xx: DelegateProblemError)
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { JobEvent } from './types.js';
import { DelegateNetworkError, DelegateProblemError, problemOf } from './errors.js';
import { backoffMs, sleep, urlOf, type TransportOptions } from './http.js';

/** Options of `events()`. */
export interface EventsOptions {
  /** Start after this seq (0 or absent: from the first event). */
  after?: number;
  /** Ends the stream: the iterator then throws the signal's reason. */
  signal?: AbortSignal;
}

/** Reads one SSE message as a JobEvent (the JSON in `data`; `id` and `event` stand in for a missing seq and type). */
function eventOf(m: EventSourceMessage): JobEvent | undefined {
  try {
    const e = JSON.parse(m.data) as { seq?: unknown; type?: unknown };
    if (typeof e.seq !== 'number' && m.id) e.seq = Number(m.id);
    if (!e.type && m.event) e.type = m.event;
    return typeof e.seq === 'number' && typeof e.type === 'string' ? (e as JobEvent) : undefined;
  } catch {
    return undefined;
  }
}

/** The live events of a job from `after` on, reconnecting until `job.finished`. */
export async function* streamEvents(
  t: TransportOptions,
  jobId: string,
  { after = 0, signal }: EventsOptions = {},
): AsyncGenerator<JobEvent, void, undefined> {
  const fetchImpl = t.fetch ?? globalThis.fetch;
  const path = `/v1/jobs/${encodeURIComponent(jobId)}/events`;
  const what = `GET ${path}`;
  const retries = t.retries ?? 3;
  let last = after;
  // failures in a row without an event in between: a stream that keeps dropping before saying anything gives up
  let failures = 0;
  for (;;) {
    const headers: Record<string, string> = { accept: 'text/event-stream', authorization: `Bearer ${t.apiKey}` };
    if (last > 0) headers['last-event-id'] = String(last);
    let problem: unknown;
    try {
      const res = await fetchImpl(urlOf(t.baseUrl, path), { headers, signal });
      if (!res.ok) {
        if (res.status < 500 && res.status !== 429) throw new DelegateProblemError(await problemOf(res), what);
        problem = new DelegateProblemError(await problemOf(res), what);
      } else if (!res.body) {
        problem = new DelegateNetworkError('the event stream had no body', what);
      } else {
        const pending: JobEvent[] = [];
        const parser = createParser({
          onEvent: (m) => {
            const e = eventOf(m);
            // a replay after a reconnect starts after `last`; anything older is a repeat
            if (e && e.seq > last) pending.push(e);
          },
        });
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        try {
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            parser.feed(value);
            for (const e of pending.splice(0)) {
              last = e.seq;
              failures = 0;
              yield e;
              if (e.type === 'job.finished') return;
            }
          }
        } finally {
          // the consumer stopped early, or the stream is done: let the connection go
          await reader.cancel().catch(() => undefined);
        }
        problem = new DelegateNetworkError('the event stream closed before job.finished', what);
      }
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (err instanceof DelegateProblemError) throw err;
      problem = err;
    }
    if (++failures > retries) {
      throw problem instanceof DelegateProblemError || problem instanceof DelegateNetworkError
        ? problem
        : new DelegateNetworkError(`event stream of "${jobId}" failed: ${(problem as Error)?.message ?? String(problem)}`, what, {
            cause: problem,
          });
    }
    await sleep(backoffMs(failures - 1), signal);
  }
}
