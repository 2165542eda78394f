/**
 * Where a worker finds a breaker's run, and what it does when no worker serves it: the part of the
 * breaker's client (circuit-breaker.ts) that deals with runs rather than with circuits. A run left
 * on a queue no worker polls (the queue renamed, a deployment moved) is moved onto this worker's
 * queue with what it would hold (its memo, then the signals it never applied); a run on this queue
 * that no worker serves is skipped for a while and logged once.
 *
 *   describe ──run on another queue: nobody polls it, or a task waits there > unservedMs──> move here (start, terminating it)
 *            └─run on this queue: a task waits > unservedMs, nobody polls it──> skip for skipMs (onError once)
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import type { BreakerSettings } from '../schemas/breaker';
import type { AgentBreakerWorkflow } from '../contracts/breaker';
import { releaseTrialSignal, stepOutcomeSignal } from '../contracts/messages';
import { BREAKER_MEMO_KEY, breakerWorkflowId } from '../core/names';
import { applyOutcome, initialBreaker, releaseTrial, type BreakerState, type StepOutcome } from '../core/breaker-state';
import { LIVE_POLLER_MS } from './load-score';

/** Whose circuit a step counts on: the agent's, for the step's tenant (absent: the agent's shared one). */
export interface BreakerTarget {
  agentId: string;
  tenant?: string;
}

/** The breaker's workflow id. */
export const idOf = (t: BreakerTarget) => breakerWorkflowId(t.agentId, t.tenant);
/** The breaker's summary in the Temporal UI. */
export const summaryOf = (t: BreakerTarget) => `circuit breaker of agent ${t.agentId}${t.tenant ? ` for tenant ${t.tenant}` : ''}`;
/** The breaker's workflow input. */
export const inputOf = (t: BreakerTarget, settings: BreakerSettings) => ({
  agentId: t.agentId,
  ...(t.tenant ? { tenant: t.tenant } : {}),
  settings,
});

/** What one describe of a breaker's run showed. */
export interface Seen {
  /** The memo: what the run applied so far (undefined: it never published one). */
  state?: BreakerState;
  runId: string;
  taskQueue: string;
  running: boolean;
  /** Since when (epoch ms, Temporal's clock) a workflow task waits for a worker: the run has signals it has not applied. */
  waitingSince?: number;
  /** This read moved the run: `state` is what the new run carries. */
  moved?: boolean;
}

/** Wire values of the Temporal API (stable; the proto module is type-only here). */
const WORKFLOW_QUEUE: temporal.api.enums.v1.TaskQueueType = 1;
const TASK_SCHEDULED: temporal.api.enums.v1.PendingWorkflowTaskState = 1;
/** Epoch ms of a protobuf timestamp (0 when absent). */
const msOf = (ts?: { seconds?: { toString(): string } | number | null; nanos?: number | null } | null) =>
  ts ? Number(ts.seconds?.toString() ?? 0) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6) : 0;

/** What the runs' part needs of the breaker's client. */
export interface BreakerRunsDeps {
  client: Client;
  /** This worker's workflow queue: where a stranded run is moved. */
  taskQueue: string;
  settings: BreakerSettings;
  unservedMs: number;
  skipMs: number;
  now: () => number;
  /** Reports an error about a breaker (what was being done, for whom). */
  fail: (what: string, t: BreakerTarget, err: unknown) => void;
  onMoved?: (agentId: string, from: string, to: string, tenant?: string) => void;
}

/** Reads breakers' runs, moves stranded ones here, and skips the ones no worker serves. */
export function createBreakerRuns({ client, taskQueue, settings, unservedMs, skipMs, now, fail, onMoved }: BreakerRunsDeps) {
  /** Breakers no worker serves: skipped until then. */
  const skippedUntil = new Map<string, number>();
  /** Breakers onError was told are unreachable; forgotten once they answer again, so each loss is told once. */
  const warned = new Set<string>();
  /** Whether a worker polls a queue for workflow tasks, as last asked. */
  const polled = new Map<string, { live: boolean; at: number }>();
  const handle = (t: BreakerTarget, runId?: string) => client.workflow.getHandle(idOf(t), runId);
  const summary = summaryOf;
  const input = (t: BreakerTarget) => inputOf(t, settings);
  const skipped = (t: BreakerTarget) => (skippedUntil.get(idOf(t)) ?? 0) > now();

  function skip(t: BreakerTarget, err: unknown) {
    skippedUntil.set(idOf(t), now() + skipMs);
    if (warned.has(idOf(t))) return;
    warned.add(idOf(t));
    fail('reach', t, err);
  }
  function answered(t: BreakerTarget) {
    skippedUntil.delete(idOf(t));
    warned.delete(idOf(t));
  }

  async function read(t: BreakerTarget): Promise<Seen | undefined> {
    try {
      const d = await client.withDeadline(now() + 5000, () => handle(t).describe());
      const task = d.raw.pendingWorkflowTask;
      return {
        state: d.memo?.[BREAKER_MEMO_KEY] as BreakerState | undefined,
        runId: d.runId,
        taskQueue: d.taskQueue,
        running: d.status.name === 'RUNNING',
        waitingSince: task?.state === TASK_SCHEDULED ? msOf(task.originalScheduledTime ?? task.scheduledTime) : undefined,
      };
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return undefined;
      throw err;
    }
  }

  /** Whether a worker polls `queue` for workflow tasks (asked once per skipMs). Unknown counts as yes: nothing is moved or skipped on a guess. */
  async function served(queue: string): Promise<boolean> {
    const hit = polled.get(queue);
    if (hit && now() - hit.at < skipMs) return hit.live;
    try {
      const res = await client.withDeadline(now() + 5000, () =>
        client.workflowService.describeTaskQueue({
          namespace: client.options.namespace,
          taskQueue: { name: queue },
          taskQueueType: WORKFLOW_QUEUE,
        }),
      );
      // Temporal lists a stopped worker's pollers for minutes: only one that polled lately counts
      const live = (res.pollers ?? []).some((p) => Date.now() - msOf(p.lastAccessTime) < LIVE_POLLER_MS);
      polled.set(queue, { live, at: now() });
      return live;
    } catch {
      return true;
    }
  }

  /**
   * Where a running breaker is not served, makes it so or gives up on it for a while. A run on another
   * queue is moved here when nobody polls that queue, or a task has waited there past the bound (the
   * queue's pollers may be a stopped worker's last minute); `force`: it just failed to answer. A run
   * on this queue that nobody polls has nowhere to go: it is skipped. One served but slow is waited on
   * as before (within confirmMs): a busy worker is not a lost one.
   */
  async function reach(t: BreakerTarget, seen: Seen | undefined, force = false): Promise<Seen | undefined> {
    if (!seen?.running || skipped(t)) return seen;
    const stuck = force || (seen.waitingSince !== undefined && Date.now() - seen.waitingSince >= unservedMs);
    if (seen.taskQueue !== taskQueue) return stuck || !(await served(seen.taskQueue)) ? move(t, seen) : seen;
    if (stuck && !(await served(taskQueue))) skip(t, new Error(`no worker polls its task queue ${taskQueue}: skipped for ${skipMs} ms`));
    return seen;
  }

  /**
   * What a run would hold once a worker applied all it was sent: its memo, then the signals after its
   * last completed workflow task, each outcome at the step's own time (a failure sent long ago opens
   * no circuit now). A history that cannot be read leaves the memo.
   */
  async function heldBy(t: BreakerTarget, seen: Seen): Promise<BreakerState> {
    let s = seen.state ?? initialBreaker(settings);
    const events = await client
      .withDeadline(now() + 5000, () => handle(t, seen.runId).fetchHistory())
      .then((h) => h.events ?? [])
      .catch(() => []);
    let started = -1;
    let from = 0;
    events.forEach((e, i) => {
      if (e.workflowTaskStartedEventAttributes) started = i;
      if (e.workflowTaskCompletedEventAttributes) from = started + 1;
    });
    const { payloadConverter, payloadCodecs } = client.options.loadedDataConverter;
    for (const e of events.slice(from)) {
      const signal = e.workflowExecutionSignaledEventAttributes;
      let payloads = signal?.input?.payloads ?? [];
      if (!signal || payloads.length === 0) continue;
      for (const codec of [...payloadCodecs].reverse()) payloads = await codec.decode(payloads);
      const arg = payloadConverter.fromPayload(payloads[0]);
      if (signal.signalName === stepOutcomeSignal.name) s = applyOutcome(s, arg as StepOutcome, Math.min((arg as StepOutcome).at, now()));
      if (signal.signalName === releaseTrialSignal.name) s = releaseTrial(s, (arg as { holder: string }).holder);
    }
    return s;
  }

  /**
   * Moves a run no worker serves onto this worker's queue. One start both begins the new run and
   * terminates the old, so no step's signalWithStart falls in a gap and begins an empty breaker; a
   * signal that reaches the old run between the read of its history and the start is lost.
   */
  async function move(t: BreakerTarget, seen: Seen): Promise<Seen> {
    let carry: BreakerState;
    let runId: string;
    try {
      carry = await heldBy(t, seen);
      ({ firstExecutionRunId: runId } = await client.workflow.start<AgentBreakerWorkflow>('agentBreaker', {
        workflowId: idOf(t),
        taskQueue,
        args: [{ ...input(t), carry }],
        memo: { [BREAKER_MEMO_KEY]: carry },
        workflowIdConflictPolicy: 'TERMINATE_EXISTING',
        staticSummary: summary(t),
      }));
    } catch (err) {
      skip(t, err);
      return seen;
    }
    answered(t);
    onMoved?.(t.agentId, seen.taskQueue, taskQueue, t.tenant);
    return { state: carry, runId, taskQueue, running: true, moved: true };
  }

  return { read, reach, skipped, answered };
}
