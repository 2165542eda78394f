/**
 * Prompt-cache hit rates in the record, on both stores: the archive sums the input and cached input
 * tokens of a job's subtasks per agent and per role, and the summary reads them back as rates
 * (null where no subtask reported a split).
 */
import { describe, expect, it } from 'vitest';
import { emptyMetrics } from '../../core/task-results';
import type { TaskResult } from '../../schemas';
import { recordJob } from '../record-jobs';
import { openFreshRecord, RECORD_STORES } from '../record-stores';
import { taskResult } from '../task-result';

const role = (id: string) => ({
  id,
  taskType: 'review',
  requiredSkills: [],
  loadedSkills: [],
  bootstrapped: true,
  protocolErrors: [],
  outputKind: 'review',
  maxOutputTokens: 512,
});
/** A role task's result on `agentId` with its token split. */
const roleResult = (id: string, roleId: string, agentId: string, input: number, cached: number): TaskResult =>
  taskResult(id, null, {
    agentId,
    role: role(roleId),
    metrics: { ...emptyMetrics(), tokens: input + 10, inputTokens: input, outputTokens: 10, cachedInputTokens: cached },
  });

describe.each(RECORD_STORES)('prompt-cache hit rates on %s', (kind) => {
  const record = openFreshRecord(kind);

  it('sums input and cached input tokens per agent and per role; the summary gives the rates', async () => {
    const job = recordJob('pc', 1);
    job.result = {
      ...job.result,
      results: [
        roleResult('r1', 'critic', 'claude', 1000, 0),
        roleResult('r2', 'critic', 'claude', 1000, 900),
        roleResult('r3', 'planner', 'claude', 2000, 1500),
        taskResult('t4', null, { agentId: 'echo' }),
      ],
    };
    await record.store.archive(job);
    const s = await record.store.summary('pc', job.closedAt, job.closedAt + 1);
    expect(s.byRole).toEqual([
      // most input first, ties by role
      { role: 'critic', subtasks: 2, inputTokens: 2000, cachedInputTokens: 900, cacheHitRate: 0.45 },
      { role: 'planner', subtasks: 1, inputTokens: 2000, cachedInputTokens: 1500, cacheHitRate: 0.75 },
    ]);
    expect(s.byAgent.find((a) => a.agentId === 'claude')!.cacheHitRate).toBeCloseTo(2400 / 4000, 12);
    expect(s.byAgent.find((a) => a.agentId === 'echo')!.cacheHitRate).toBeNull();
    // another tenant sees none of it
    expect((await record.store.summary('other', job.closedAt, job.closedAt + 1)).byRole).toEqual([]);
  });
});
