/**
 * The client's event and result types: each event's `data` typed by its `type` (a
 * discriminated union, checked by tsc on this file), `TaskResult` and `JobResult` by name, and
 * the schema behind them reading the events the service writes.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { JobEvent, JobEventOf, JobResult, TaskResult } from 'delegate/client';
import { TypedJobEventSchema } from '../../schemas';

const metrics = { latencyMs: 5, costUsd: 0.01, tokens: 10, toolCalls: 0, steps: 1, attempts: 1, channelsHit: [] };
const finished = {
  seq: 4,
  type: 'subtask.finished',
  at: '2026-01-01T00:00:00.000Z',
  data: { taskId: 'a', workflowId: 'job/default/j/a', agentId: 'echo', status: 'success', failureReason: null, metrics },
};

describe('the client’s event types', () => {
  it("types an event's data by its type", () => {
    expectTypeOf<JobEventOf<'subtask.finished'>['data']['status']>().toEqualTypeOf<'success' | 'partial' | 'failure'>();
    expectTypeOf<JobEventOf<'job.finished'>['data']['status']>().toEqualTypeOf<JobResult['status']>();
    expectTypeOf<JobEventOf<'vote.decided'>['data']['agreement']>().toEqualTypeOf<number>();
    expectTypeOf<JobEventOf<'job.started'>['data']['metrics']>().toEqualTypeOf<unknown>();
    const narrow = (e: JobEvent) => (e.type === 'subtask.delta' ? e.data.text : undefined);
    expectTypeOf(narrow).returns.toEqualTypeOf<string | undefined>();
  });

  it('exports TaskResult and JobResult by name, one the element of the other', () => {
    expectTypeOf<JobResult['results'][number]>().toEqualTypeOf<TaskResult>();
    expectTypeOf<TaskResult['failureReason']>().toExtend<string | null>();
  });

  it('reads an event the service writes, and refuses data its type does not carry', () => {
    expect(TypedJobEventSchema.parse(finished)).toMatchObject({ type: 'subtask.finished', data: { status: 'success' } });
    // keys a newer writer adds pass through
    expect(TypedJobEventSchema.parse({ ...finished, data: { ...finished.data, extra: 1 } }).data).toHaveProperty('extra', 1);
    const { status: _, ...noStatus } = finished.data;
    expect(TypedJobEventSchema.safeParse({ ...finished, data: noStatus }).success).toBe(false);
    expect(TypedJobEventSchema.safeParse({ ...finished, type: 'job.finished' }).success).toBe(false);
  });
});
