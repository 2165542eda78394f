/**
 * Waiting for a job in the CLI: the result comes from long polls, the progress line from the
 * job's live events (or, where the API has none, from its view every second). On a TTY the
 * line is redrawn in place; otherwise each finished subtask gets a plain line.
 *
 *   waitForResult ───────────────────────────────> result ──> stop the progress
 *   events() ──> JobProgressLine ──> stderr  (404 or a broken stream ──> poll get() instead)
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { JobResult } from 'delegate/client';
import type { Context } from './context';
import { note, safeText } from './output';
import { JobProgressLine } from './progress';

/** Options of `waitWithProgress`. */
export interface WaitWithProgressOptions {
  /** Subtasks the spec holds (the events' total until the job says otherwise). */
  total: number;
  limitUsd?: number;
  timeoutSeconds?: number;
  /** Draw the progress line in place (stderr is a TTY). */
  tty?: boolean;
}

/** Follows the job's events into `line`, printing as it goes, until it finishes or `signal` aborts. */
async function follow(ctx: Context, line: JobProgressLine, draw: (plain?: string) => void, signal: AbortSignal): Promise<void> {
  try {
    for await (const e of ctx.client.events(line.jobId, { signal })) draw(line.apply(e));
  } catch {
    if (signal.aborted) return;
    // no live events (an API without them, a stream that broke): the view every second will do
    for (;;) {
      const v = await ctx.client.get(line.jobId, { signal }).catch(() => undefined);
      if (signal.aborted) return;
      if (v) {
        const before = line.done;
        line.fromView(v);
        draw(line.done !== before ? line.line() : undefined);
      }
      await sleep(1000, undefined, { signal }).catch(() => undefined);
      if (signal.aborted) return;
    }
  }
}

/** Waits for the job's result while showing its progress on stderr. */
export async function waitWithProgress(ctx: Context, jobId: string, opts: WaitWithProgressOptions): Promise<JobResult> {
  const line = new JobProgressLine(jobId, opts.total, opts.limitUsd);
  const tty = Boolean(opts.tty);
  const draw = (plain?: string) => {
    if (tty) process.stderr.write(`\r\x1b[2K${safeText(line.line())}`);
    else if (plain) note(plain);
  };
  draw();
  const stop = new AbortController();
  const following = follow(ctx, line, draw, stop.signal);
  try {
    const result = await ctx.client.waitForResult(jobId, { timeoutSeconds: opts.timeoutSeconds });
    // the last events (job.finished) may trail the result by a moment: give them a short while
    await Promise.race([following, sleep(1500)]);
    line.status = result.status;
    line.spentUsd = result.metrics.costUsd;
    // finished: every subtask has its outcome, whatever the stream managed to tell
    line.done = line.total;
    return result;
  } finally {
    stop.abort();
    await following.catch(() => undefined);
    if (tty) process.stderr.write(`\r\x1b[2K${safeText(line.line())}\n`);
  }
}
