import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BudgetSchema, BudgetTopUpSchema, EvidenceSchema, JobSpecSchema, TaskSpecSchema } from '../../schemas';

const task = { id: 't1', question: 'What is X?', agent: 'echo' };
const paths = (r: { success: boolean; error?: z.ZodError }) => (r.error?.issues ?? []).map((i) => i.path.join('.'));

describe('Budget', () => {
  it('accepts any subset of axes and rejects negatives, non-numbers and unknown axes', () => {
    expect(BudgetSchema.parse({})).toEqual({});
    expect(BudgetSchema.parse({ costUsd: 0.5, tokens: 1000 })).toEqual({ costUsd: 0.5, tokens: 1000 });
    expect(paths(BudgetSchema.safeParse({ costUsd: -1 }))).toEqual(['costUsd']);
    expect(paths(BudgetSchema.safeParse({ tokens: 1.5 }))).toEqual(['tokens']);
    expect(paths(BudgetSchema.safeParse({ toolCalls: '3' }))).toEqual(['toolCalls']);
    expect(paths(BudgetSchema.safeParse({ latencySeconds: 0 }))).toEqual(['latencySeconds']);
    expect(BudgetSchema.safeParse({ dollars: 1 }).success).toBe(false);
    expect(BudgetSchema.safeParse({ costUsd: Infinity }).success).toBe(false);
  });

  it('top-ups must add something positive', () => {
    expect(BudgetTopUpSchema.safeParse({ add: {} }).success).toBe(false);
    expect(BudgetTopUpSchema.safeParse({ add: { costUsd: 0 } }).success).toBe(false);
    expect(BudgetTopUpSchema.safeParse({ add: { costUsd: -0.1 } }).success).toBe(false);
    expect(BudgetTopUpSchema.parse({ add: { costUsd: 0.1 } })).toEqual({ add: { costUsd: 0.1 } });
  });
});

describe('TaskSpec and JobSpec', () => {
  it('accepts a minimal fan-out and every agent reference form', () => {
    const job = JobSpecSchema.parse({
      pattern: 'fanout',
      tasks: [task, { ...task, id: 't2', agent: { capability: 'sim' } }, { ...task, id: 't3', agent: { route: 'semantic', hint: 'math' } }],
    });
    expect(job.tasks).toHaveLength(3);
  });

  it('rejects an empty question, a bad id, a bad agent and unknown fields, with paths', () => {
    expect(paths(TaskSpecSchema.safeParse({ ...task, question: '   ' }))).toEqual(['question']);
    expect(paths(TaskSpecSchema.safeParse({ ...task, id: 'a/b' }))).toEqual(['id']);
    expect(paths(TaskSpecSchema.safeParse({ ...task, agent: { route: 'random' } }))).toEqual(['agent']);
    expect(TaskSpecSchema.safeParse({ ...task, extra: 1 }).success).toBe(false);
    expect(TaskSpecSchema.safeParse({ ...task, __proto__: { polluted: true }, constructor: 'x' }).success).toBe(false);
  });

  it('needs an agent or a nested job per task, not both, at any depth', () => {
    const noAgent = JobSpecSchema.safeParse({ pattern: 'fanout', tasks: [{ id: 'a', question: 'q' }] });
    expect(paths(noAgent)).toEqual(['tasks.0.agent']);
    const both = JobSpecSchema.safeParse({ pattern: 'fanout', tasks: [{ ...task, job: { pattern: 'fanout', tasks: [task] } }] });
    expect(paths(both)).toEqual(['tasks.0.job']);
    const deep = JobSpecSchema.safeParse({
      pattern: 'pipeline',
      tasks: [{ id: 'n', question: 'q', job: { pattern: 'fanout', tasks: [task, { id: 't1', question: 'q' }] } }],
    });
    expect(paths(deep)).toEqual(expect.arrayContaining(['tasks.0.job.tasks.1.id', 'tasks.0.job.tasks.1.agent']));
  });

  it('rejects duplicate ids, a quorum above the task count, and a bad callback URL', () => {
    const dup = JobSpecSchema.safeParse({ pattern: 'fanout', tasks: [task, task] });
    expect(paths(dup)).toEqual(['tasks.1.id']);
    const q = JobSpecSchema.safeParse({ pattern: 'fanout', tasks: [task], aggregation: { quorum: 2 } });
    expect(paths(q)).toEqual(['aggregation.quorum']);
    expect(JobSpecSchema.safeParse({ pattern: 'fanout', tasks: [task], callbackUrl: 'ftp://x' }).success).toBe(false);
    expect(JobSpecSchema.safeParse({ pattern: 'fanout', tasks: [] }).success).toBe(false);
    expect(JobSpecSchema.safeParse({ pattern: 'fanout', tasks: [task], maxParallel: 0 }).success).toBe(false);
  });

  it('fills retry defaults and keeps evidence strict', () => {
    const t = TaskSpecSchema.parse({ ...task, retry: { maxAttempts: 5 } });
    expect(t.retry).toEqual({ maxAttempts: 5, initialIntervalSeconds: 1, backoffCoefficient: 2, maximumIntervalSeconds: 30 });
    expect(EvidenceSchema.safeParse({ id: 'e', source: 's' }).success).toBe(false);
  });

  it('turns into JSON Schema for OpenAPI, recursion included', () => {
    const text = JSON.stringify(z.toJSONSchema(JobSpecSchema, { io: 'input' }));
    for (const field of ['"pattern"', '"tasks"', '"budget"', '"question"', '"job"']) expect(text).toContain(field);
  });
});

describe('pattern caps', () => {
  it('caps pipelines at 1000 stages and votes at 1000 voters; fan-outs go to 10,000', () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `t${i}`, question: 'q', agent: 'echo' }));
    expect(paths(JobSpecSchema.safeParse({ pattern: 'pipeline', tasks: many(1001) }))).toEqual(['tasks']);
    expect(JobSpecSchema.safeParse({ pattern: 'pipeline', tasks: many(1000) }).success).toBe(true);
    expect(paths(JobSpecSchema.safeParse({ pattern: 'vote', tasks: many(1001) }))).toEqual(['tasks']);
    expect(JobSpecSchema.safeParse({ pattern: 'fanout', tasks: many(10_000) }).success).toBe(true);
  });
});
