/**
 * What a running step tells while it runs: its spend so far in the activity's heartbeat (so a
 * cut, a cancel or a lost worker books it), and its model's text as `subtask.delta` events on
 * the job's stream, batched at most every DELTA_EVERY_MS and bounded per attempt.
 *
 *   agent ──onUsage(u)──> heartbeat { usage: carried + u }   (carried: earlier attempts' last heartbeat)
 *         ──onText(t)───> buffer ──every 100 ms──> subtask.delta { seq, text } … ──flush()──> before subtask.step
 */
import type { Context } from '@temporalio/activity';
import { log } from '@temporalio/activity';
import { addUsage, spentSomething, usageOf } from '../core/money';
import type { NewJobEvent, Usage } from '../schemas';

/** How often streamed text is written to the job's stream, at most. */
export const DELTA_EVERY_MS = 100;

/** Text one attempt of a step streams to the job's events, at most (characters); a last event says it was cut. */
export const MAX_DELTA_CHARS_PER_STEP = 16_000;

/** What a step's heartbeat details carry. */
export interface StepHeartbeat {
  /** Spent so far by this step, earlier attempts included. */
  usage: Usage;
}

/** The spend an earlier attempt's last heartbeat reported (zero on a first attempt). */
export function carriedUsage(ctx: Context): Usage {
  const d = ctx.info.heartbeatDetails as Partial<StepHeartbeat> | undefined;
  return usageOf(d?.usage ?? {});
}

/** Options of `createStepStream`. */
export interface StepStreamOptions {
  ctx: Context;
  /** Writes one event to the job's stream (absent: no events). */
  append?: (e: NewJobEvent) => Promise<unknown>;
  /** The fields every delta event carries (taskId, workflowId, step, attempt). */
  fields: Record<string, unknown>;
  /** The key deltas derive theirs from (`<stepKey>#<attempt>`). */
  key: string;
}

/** The live side of one step's attempt. */
export function createStepStream({ ctx, append, fields, key }: StepStreamOptions) {
  const carried = carriedUsage(ctx);
  let own: Usage | undefined;
  let buffered = '';
  let written = 0;
  let seq = 0;
  let cut = false;
  let timer: NodeJS.Timeout | undefined;
  let chain: Promise<void> = Promise.resolve();
  const total = (): Usage => (own ? addUsage(carried, own) : carried);
  // an earlier attempt's spend on any axis counts (one that only called tools included), not only tokens and dollars
  const details = (): StepHeartbeat | undefined => (own || spentSomething(carried) ? { usage: total() } : undefined);

  function flushNow(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (!append || (!buffered && !cut) || seq < 0) return chain;
    const text = buffered;
    buffered = '';
    const data = { ...fields, seq: ++seq, text, ...(cut ? { truncated: true } : {}) };
    if (cut) seq = -1; // the truncation note is the last delta
    // live text only: a write the record refuses is logged, the step goes on (the result has the text)
    chain = chain.then(() =>
      append({ key: `delta:${key}:${data.seq}`, type: 'subtask.delta', data }).then(
        () => undefined,
        (err: unknown) => log.warn('subtask.delta not written', { key, error: String(err) }),
      ),
    );
    return chain;
  }

  return {
    /** The heartbeat's details now: the step's spend so far (undefined while nothing was spent). */
    details,
    /** What the step spent so far, earlier attempts' last report included. */
    total,
    /** What earlier attempts of the step had spent (their last heartbeat's). */
    carried,
    /** Heartbeats (throttled by the SDK) with the step's spend so far. */
    onUsage(u: Usage): void {
      own = u;
      ctx.heartbeat(details());
    },
    /** Buffers text for the next delta event. */
    onText(delta: string): void {
      if (!append || seq < 0 || cut) return;
      const room = MAX_DELTA_CHARS_PER_STEP - written;
      buffered += delta.slice(0, Math.max(0, room));
      written += Math.min(delta.length, Math.max(0, room));
      if (delta.length > room) {
        cut = true;
        void flushNow();
        return;
      }
      timer ??= setTimeout(() => void flushNow(), DELTA_EVERY_MS);
    },
    /** Writes what is buffered and waits for every delta written so far. */
    flush: flushNow,
    /**
     * The step's whole spend once its agent answered (`reported`: the answer's usage, earlier
     * attempts' added), heartbeated so a retry of a refused output still books it; a step that
     * spent nothing sends no heartbeat, since each first one is a call to the server.
     */
    settle(reported: Partial<Usage>): Usage {
      const usage = addUsage(carried, reported);
      if (spentSomething(usage)) ctx.heartbeat({ usage });
      return usage;
    },
  };
}
