/**
 * Progress of a job for an MCP caller that sent a progressToken: `progress` is the number of
 * finished agent subtasks (nested jobs not counted, as in the CLI), `total` their number, so
 * it only grows (as MCP requires). It is fed by the job's live events (the same stream as
 * SSE); when no event has come for a second (a deployment whose workers write none, or a
 * quiet spell) it asks the job's view instead. A streamed model turn's text (`subtask.delta`)
 * shows as it comes: batched per subtask, at most one notification per DELTA_MS, each message
 * bounded, with a progress a little above the finished count (still growing, below the next).
 *
 *   events ── subtask.finished ──┐
 *                                ├──> finished count grew? ──> notifications/progress
 *   view (after 1 s of silence) ─┘
 *   events ── subtask.delta ──> buffer per task ──every DELTA_MS──> notifications/progress { message: "t: <text>" }
 */
import { FinishedSubtasks } from 'delegate/client';
import { setTimeout as sleep } from 'node:timers/promises';
import type { JobEvent } from '../schemas';
import type { DelegateBackend } from './backend';

/** One progress notification's content. */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** How often the view is asked when no event comes. @default 1000 */
const QUIET_MS = 1000;

/**
 * Pause between the last notification and the answer: the SDK's client handles a
 * notification a tick after reading it but a response at once, so a notification read in
 * the same chunk as the response would find its progress handler gone and be dropped.
 */
const LAST_NOTICE_GAP_MS = 50;

/** How long the last step waits for the events to catch up with the result. @default 2000 */
const FINISH_WAIT_MS = 2000;
/** Streamed text is sent at most this often. @default 200 */
export const DELTA_MS = 200;
/** The most text one notification carries (more waits for the next; beyond DELTA_BUFFER the middle is cut). @default 2000 */
export const DELTA_MESSAGE_CHARS = 2000;
/** The most text buffered per subtask between notifications. @default 8000 */
const DELTA_BUFFER = 8000;

/** What an event says, in words a caller's UI shows. */
function describe(e: JobEvent): string {
  const d = e.data;
  const task = typeof d.taskId === 'string' ? ` ${d.taskId}` : '';
  const status = typeof d.status === 'string' ? ` (${d.status})` : '';
  return `${e.type}${task}${status}`;
}

/**
 * Sends progress for `jobId` until `signal` aborts; resolves once it has stopped. Call
 * `finish` after the result to send the last step (all done) if it was not sent yet.
 */
export function followProgress(
  backend: DelegateBackend,
  jobId: string,
  total: number,
  send: (p: Progress) => Promise<void>,
  signal: AbortSignal,
) {
  const finished = new FinishedSubtasks();
  let sent = -1;
  let lastNews = Date.now();
  // streamed text not sent yet, per subtask, and how many text notices went since the count last grew
  const text = new Map<string, string>();
  let notices = 0;
  let base = 0;
  // one notification after the other, in the order their progress was counted
  let queue: Promise<void> = Promise.resolve();
  const emit = (p: Progress) => (queue = queue.then(() => send(p).catch(() => undefined)));
  const report = async (done: number, message: string) => {
    if (done <= sent || signal.aborted) return;
    sent = done;
    base = done;
    notices = 0;
    await emit({ progress: done, total, message });
  };
  const flushText = async () => {
    for (const [taskId, buffered] of text) {
      const piece = buffered.slice(0, DELTA_MESSAGE_CHARS);
      if (buffered.length > piece.length) text.set(taskId, buffered.slice(piece.length));
      else text.delete(taskId);
      if (signal.aborted) return;
      // above the finished count, below the next one, and growing with each notice
      notices++;
      const progress = base + notices / (notices + 1);
      sent = progress;
      await emit({ progress, total, message: `${taskId}: ${piece}` });
    }
  };
  const buffer = (e: JobEvent) => {
    const t = e.data.text;
    if (typeof t !== 'string' || !t) return;
    const taskId = typeof e.data.taskId === 'string' ? e.data.taskId : 'job';
    let all = (text.get(taskId) ?? '') + t;
    if (all.length > DELTA_BUFFER) all = `${all.slice(0, DELTA_MESSAGE_CHARS)}…${all.slice(-(DELTA_BUFFER - DELTA_MESSAGE_CHARS))}`;
    text.set(taskId, all);
  };

  let eventsEnded!: () => void;
  const ended = new Promise<void>((resolve) => (eventsEnded = resolve));
  const fromEvents = (async () => {
    try {
      for await (const e of backend.events(jobId, 0, signal)) {
        lastNews = Date.now();
        if (e.type === 'job.started') await report(0, 'job started');
        if (e.type === 'subtask.delta') buffer(e);
        finished.add(e);
        if (e.type === 'subtask.finished' || e.type === 'job.finished') {
          // the text first: it came before the subtask finished
          await flushText();
          await report(finished.done, `${describe(e)}: ${finished.done}/${total} finished`);
        }
      }
    } catch {
      // no event stream (an older API, a network hiccup): the view still reports
    } finally {
      eventsEnded();
    }
  })();

  const fromText = (async () => {
    while (!signal.aborted) {
      await sleep(DELTA_MS, undefined, { signal }).catch(() => undefined);
      if (text.size) await flushText();
    }
  })();

  const fromView = (async () => {
    while (!signal.aborted) {
      // the loop runs for minutes: sleep drops its abort listener after each pause
      await sleep(QUIET_MS, undefined, { signal }).catch(() => undefined);
      if (signal.aborted || Date.now() - lastNews < QUIET_MS) continue;
      const p = (await backend.view(jobId).catch(() => undefined))?.progress;
      // the last step is the events' or finish's: streamed text may still come before it
      if (p)
        await report(Math.min(Math.max(finished.done, p.completed), total - 1), `${p.completed}/${p.total} finished, ${p.running} running`);
    }
  })();

  return {
    /** Resolves once both feeds have stopped (after `signal` aborts). */
    stopped: Promise.all([fromEvents, fromView, fromText]).then(() => undefined),
    /** The last step, once the result is in. */
    async finish(message: string): Promise<void> {
      // the result can come before the events that led to it: their text goes first (bounded wait)
      await Promise.race([ended, sleep(FINISH_WAIT_MS, undefined, { signal }).catch(() => undefined)]);
      await flushText();
      if (sent < total) {
        sent = total;
        await emit({ progress: total, total, message });
      }
      await queue;
      // whichever feed sent the last one, it must reach the caller before the answer does
      await sleep(LAST_NOTICE_GAP_MS);
    },
  };
}
