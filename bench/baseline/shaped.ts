/**
 * The engine-share bench's baseline (bench/engine-share.ts), apart from bench/baseline/workflows.ts
 * so the bare baseline's bundle stays as small as it was: what a Delegate subtask asks of the
 * engine, without Delegate's code.
 */
import { executeChild, proxyActivities, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { AGENT_KEY, PATTERN_KEY, STATUS_KEY, TENANT_KEY } from '../../core/search-attributes';
import type * as activities from './activities';

/**
 * What a Delegate subtask asks of the engine, without Delegate's code (bench/engine-share.ts): a
 * bare child with the subtask's summary and execution timeout at start (no search attributes: a
 * subtask gets them at its end), payloads of the sizes a Delegate subtask's history holds (its
 * input, its step's input and output, its result), the step's activity options (heartbeat and
 * schedule-to-start timeouts, retry policy with the non-retryable types, summary), and the
 * outcome's upsert at the end with the attributes a job's subtask shows (status, agent,
 * pattern and tenant; labels too when the job has some, the bench's have none). Sizes are measured from
 * a real subtask.
 */
export interface EngineShape {
  /** Padding of the child's input, its activity's input, its activity's result and its own result (characters). */
  pad: { input: number; stepInput: number; stepOutput: number; result: number };
  /** Non-retryable error types of the step's retry policy (the subtask's list). */
  nonRetryable: string[];
}

/** One shaped child: the subtask's footprint in the engine, and nothing of its work. */
export async function shapedChild(input: { i: number; shape: EngineShape; pad: string }): Promise<{ i: number; pad: string }> {
  const { shape } = input;
  const { noopPadded } = proxyActivities<typeof activities>({
    startToCloseTimeout: '10 seconds',
    scheduleToStartTimeout: '300 seconds',
    scheduleToCloseTimeout: '1 day',
    heartbeatTimeout: '10 seconds',
    summary: `t${input.i} · echo · q${input.i}`,
    retry: {
      maximumAttempts: 3,
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '10 seconds',
      nonRetryableErrorTypes: shape.nonRetryable,
    },
  });
  await noopPadded({ i: input.i, pad: 'x'.repeat(shape.pad.stepInput), reply: shape.pad.stepOutput });
  upsertSearchAttributes([
    { key: STATUS_KEY, value: 'success' },
    { key: AGENT_KEY, value: 'echo' },
    { key: PATTERN_KEY, value: 'fanout' },
    { key: TENANT_KEY, value: 'bench' },
  ]);
  return { i: input.i, pad: 'x'.repeat(shape.pad.result) };
}

/** The parent of shaped children: n at once, each started as a job starts a subtask (summary, timeout). */
export async function shapedFanout({ n, shape }: { n: number; shape: EngineShape }): Promise<number> {
  const id = workflowInfo().workflowId;
  const pad = 'x'.repeat(shape.pad.input);
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      executeChild(shapedChild, {
        workflowId: `${id}/t${i}`,
        args: [{ i, shape, pad }],
        staticSummary: `t${i} · echo · q${i}`,
        workflowExecutionTimeout: '1 day',
      }),
    ),
  );
  return results.length;
}
