/** The token split beside `tokens`: summed like the axes through steps, ledgers and job sums; absent where nobody reported it. */
import { describe, expect, it } from 'vitest';
import type { JobResult, TaskResult, TaskSpec } from '../../schemas';
import { addSplit, splitOf } from '../../core/token-split';
import { addUsage, usageOf } from '../../core/money';
import { charge, newLedger } from '../../core/budget-ledger';
import { emptyMetrics, jobAsTaskResult, sumMetrics } from '../../core/task-results';
import { toResearchOutput } from '../../core/research-output';
import { taskResult } from '../task-result';

const llmStep = { costUsd: 0.01, tokens: 150, toolCalls: 0, inputTokens: 100, outputTokens: 50, cachedInputTokens: 40 };
const result = (id: string, metrics: Partial<TaskResult['metrics']>): TaskResult =>
  taskResult(id, undefined, { metrics: { ...emptyMetrics(), ...metrics } });

/** A finished fan-out with nothing but its metrics, as a nested job's result. */
const fanout: Omit<JobResult, 'metrics'> = {
  jobId: 'j',
  pattern: 'fanout',
  status: 'success',
  output: null,
  results: [],
  evidence: [],
  followUps: [],
};

describe('token split', () => {
  it('adds field by field, keeping absent what neither side reported', () => {
    expect(addSplit({ inputTokens: 3 }, { inputTokens: 4, outputTokens: 1 })).toEqual({ inputTokens: 7, outputTokens: 1 });
    expect(addSplit({}, {})).toEqual({});
    expect(splitOf({ inputTokens: 0, tokens: 9 } as never)).toEqual({ inputTokens: 0 });
  });

  it('rides on usage: a step without a split (sim, http) adds only to tokens', () => {
    const sum = addUsage(addUsage(llmStep, llmStep), { costUsd: 0, tokens: 20, toolCalls: 1 });
    expect(sum).toEqual({ costUsd: 0.02, tokens: 320, toolCalls: 1, inputTokens: 200, outputTokens: 100, cachedInputTokens: 80 });
    expect(usageOf({ tokens: 5 })).toEqual({ costUsd: 0, tokens: 5, toolCalls: 0 });
  });

  it('is booked by the ledger and summed into a job, a nested job and the research contract', () => {
    const ledger = newLedger({ tokens: 1000 });
    charge(ledger, usageOf(llmStep));
    charge(ledger, usageOf(llmStep));
    expect(ledger.spent).toMatchObject({ tokens: 300, inputTokens: 200, outputTokens: 100, cachedInputTokens: 80 });

    const job = sumMetrics([result('a', usageOf(ledger.spent)), result('b', { tokens: 7 })], 10);
    expect(job).toMatchObject({ tokens: 307, inputTokens: 200, outputTokens: 100, cachedInputTokens: 80, subtasks: 2 });
    // without any split, the job has none either
    expect(sumMetrics([result('b', { tokens: 7 })], 10)).not.toHaveProperty('inputTokens');

    const task = { id: 'nested', question: 'q', job: { pattern: 'fanout', tasks: [] } } as unknown as TaskSpec;
    const nested = jobAsTaskResult(task, { ...fanout, metrics: job });
    expect(nested.metrics).toMatchObject({ inputTokens: 200, outputTokens: 100, cachedInputTokens: 80 });

    const research = toResearchOutput({ id: 'r', parentId: null, seed: [] }, result('r', usageOf(ledger.spent)));
    expect(research.metrics).toMatchObject({ input_tokens: 200, output_tokens: 100, cached_input_tokens: 80 });
    expect(toResearchOutput({ id: 'r', parentId: null, seed: [] }, result('r', { tokens: 3 })).metrics).not.toHaveProperty('input_tokens');
  });
});
