/**
 * Progress of a job for an MCP caller that sent a progressToken: `progress` is the number of
 * finished agent subtasks (nested jobs not counted, as in the CLI), `total` their number, so
 * it only grows (as MCP requires). It is fed by the job's live events (the same stream as
 * SSE); when no event has come for a second (a deployment whose workers write none, or a
 * quiet spell) it asks the job's view instead.
 *
 *   events ── subtask.finished ──┐
 *                                ├──> finished count grew? ──> notifications/progress
 *   view (after 1 s of silence) ─┘
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
  const report = async (done: number, message: string) => {
    if (done <= sent || signal.aborted) return;
    sent = done;
    await send({ progress: done, total, message }).catch(() => undefined);
  };

  const fromEvents = (async () => {
    try {
      for await (const e of backend.events(jobId, 0, signal)) {
        lastNews = Date.now();
        if (e.type === 'job.started') await report(0, 'job started');
        finished.add(e);
        if (e.type === 'subtask.finished' || e.type === 'job.finished')
          await report(finished.done, `${describe(e)}: ${finished.done}/${total} finished`);
      }
    } catch {
      // no event stream (an older API, a network hiccup): the view still reports
    }
  })();

  const fromView = (async () => {
    while (!signal.aborted) {
      // the loop runs for minutes: sleep drops its abort listener after each pause
      await sleep(QUIET_MS, undefined, { signal }).catch(() => undefined);
      if (signal.aborted || Date.now() - lastNews < QUIET_MS) continue;
      const p = (await backend.view(jobId).catch(() => undefined))?.progress;
      if (p) await report(Math.max(finished.done, p.completed), `${p.completed}/${p.total} finished, ${p.running} running`);
    }
  })();

  return {
    /** Resolves once both feeds have stopped (after `signal` aborts). */
    stopped: Promise.all([fromEvents, fromView]).then(() => undefined),
    /** The last step, once the result is in. */
    async finish(message: string): Promise<void> {
      if (sent < total) {
        sent = total;
        await send({ progress: total, total, message }).catch(() => undefined);
      }
      // whichever feed sent the last one, it must reach the caller before the answer does
      await sleep(LAST_NOTICE_GAP_MS);
    },
  };
}
