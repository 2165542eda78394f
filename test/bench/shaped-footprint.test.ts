/**
 * The engine-share bench (bench/engine-share.ts) splits Delegate's distance from bare Temporal
 * into the engine's part and the worker code's by running "shaped" bare children
 * (bench/baseline/shaped.ts) that ask of the engine what a subtask asks. That split is only as
 * true as the shape: when a subtask's footprint changes (6975e2c moved its search attributes
 * from its start to its outcome's upsert), the shaped child must change with it. Here one echo
 * subtask of a job and one shaped child run on the test server, and their histories must ask
 * the same of the engine: the same events in the same order, no search attributes at the start,
 * the same attributes upserted, the same summaries, timeouts and retry policy.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import proto from '@temporalio/proto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import * as activities from '../../bench/baseline/activities';
import type { EngineShape } from '../../bench/baseline/shaped';
import { NON_RETRYABLE_ERROR_TYPES } from '../../core/errors';
import { BENCH_TENANT, echoJobInput } from '../../bench/delegate-runs';
import { firstChildHistory } from '../../bench/history-cost';
import { testClient, uniqueId } from '../helpers';

type History = proto.temporal.api.history.v1.IHistory;
const { EventType } = proto.temporal.api.enums.v1;
const taskQueue = uniqueId('shaped');
let connection: NativeConnection;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  worker = await Worker.create({
    connection,
    taskQueue,
    workflowsPath: fileURLToPath(new URL('../../bench/baseline/shaped.ts', import.meta.url)),
    activities,
  });
  running = worker.run();
});

afterAll(async () => {
  worker?.shutdown();
  await running;
  await connection?.close();
});

/** What a leaf's history asks of the engine, without the values that differ by nature (ids, payload bytes, times). */
function footprint(history: History) {
  const events = history.events ?? [];
  const of = (t: proto.temporal.api.enums.v1.EventType) => events.find((e) => e.eventType === t);
  const started = of(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED)!.workflowExecutionStartedEventAttributes!;
  const step = of(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)!;
  const upsert = of(EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES)?.upsertWorkflowSearchAttributesEventAttributes;
  const set = (d?: proto.google.protobuf.IDuration | null) => Boolean(d && (String(d.seconds ?? 0) !== '0' || (d.nanos ?? 0) > 0));
  const a = step.activityTaskScheduledEventAttributes!;
  return {
    events: events.map((e) => EventType[e.eventType!]),
    startSearchAttributes: Object.keys(started.searchAttributes?.indexedFields ?? {}),
    startSummary: Boolean(events[0]!.userMetadata?.summary),
    executionTimeout: set(started.workflowExecutionTimeout),
    upserted: Object.keys(upsert?.searchAttributes?.indexedFields ?? {}).sort(),
    step: {
      summary: Boolean(step.userMetadata?.summary),
      heartbeatTimeout: set(a.heartbeatTimeout),
      scheduleToStartTimeout: set(a.scheduleToStartTimeout),
      scheduleToCloseTimeout: set(a.scheduleToCloseTimeout),
      retry: {
        maximumAttempts: a.retryPolicy?.maximumAttempts,
        backoffCoefficient: a.retryPolicy?.backoffCoefficient,
        nonRetryableErrorTypes: [...(a.retryPolicy?.nonRetryableErrorTypes ?? [])].sort(),
      },
    },
  };
}

describe("the engine-share bench's shaped child", () => {
  it('asks of the engine what an echo subtask of a job asks', async () => {
    const client = await testClient();
    /** A parent's first child's history, once the parent is done. */
    const leafOf = async (parent: WorkflowHandle) => {
      await parent.result();
      return firstChildHistory(client, parent.workflowId);
    };
    // the job as the bench (and the API) start it: its agent resolved at submission
    const jobId = uniqueId('shaped-job');
    const subtask = await leafOf(
      await client.workflow.start('delegationJob', {
        taskQueue: inject('taskQueue'),
        workflowId: `job/${BENCH_TENANT}/${jobId}`,
        args: [echoJobInput(jobId, 1)],
      }),
    );
    const shape: EngineShape = {
      pad: { input: 10, stepInput: 10, stepOutput: 10, result: 10 },
      nonRetryable: [...NON_RETRYABLE_ERROR_TYPES],
    };
    const shaped = await leafOf(
      await client.workflow.start('shapedFanout', { taskQueue, workflowId: uniqueId('shaped-fanout'), args: [{ n: 1, shape }] }),
    );
    const ours = footprint(subtask);
    // the subtask's own shape, so a test that compares two empty footprints cannot pass
    expect(ours.upserted).toEqual(['DelegateAgent', 'DelegatePattern', 'DelegateStatus', 'DelegateTenant']);
    expect(ours.startSearchAttributes).toEqual([]);
    expect(ours.step.heartbeatTimeout).toBe(true);
    expect(footprint(shaped)).toEqual(ours);
  });
});
