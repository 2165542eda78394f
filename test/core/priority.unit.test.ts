import { describe, expect, it } from 'vitest';
import { JobSpecSchema, TaskSpecSchema } from '../../schemas/job';
import { effectivePriority, jobPriority, taskPriority, withTaskPriorities } from '../../core/priority';
import { PrioritySchema } from '../../schemas/priority';

const task = (id: string, extra: { priority?: number } = {}): { id: string; question: string; agent: string; priority?: number } => ({
  id,
  question: `q ${id}`,
  agent: 'sim',
  ...extra,
});
const issuePaths = (r: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) => r.error?.issues.map((i) => i.path.join('.'));

describe('priority schema', () => {
  it('takes whole numbers 1..5 and refuses the rest with the field path', () => {
    for (const p of [1, 3, 5]) expect(PrioritySchema.parse(p)).toBe(p);
    for (const p of [0, 6, 2.5, -1, '1']) expect(PrioritySchema.safeParse(p).success).toBe(false);
    const bad = JobSpecSchema.safeParse({ pattern: 'fanout', priority: 0, tasks: [task('a', { priority: 9 }), task('b')] });
    expect(issuePaths(bad)?.sort()).toEqual(['priority', 'tasks.0.priority']);
    const nested = JobSpecSchema.safeParse({
      pattern: 'fanout',
      tasks: [{ id: 'n', question: 'q', job: { pattern: 'fanout', priority: 7, tasks: [task('x')] } }],
    });
    expect(issuePaths(nested)).toEqual(['tasks.0.job.priority']);
  });

  it('is optional on jobs and tasks', () => {
    const spec = JobSpecSchema.parse({ pattern: 'fanout', tasks: [task('a')] });
    expect(spec.priority).toBeUndefined();
    expect(TaskSpecSchema.parse(task('a', { priority: 1 })).priority).toBe(1);
  });
});

describe('priority resolution', () => {
  it('a task defaults to its job, which defaults to the priority its workflow started with, else nothing (Temporal default 3)', () => {
    expect(jobPriority({ priority: 2 }, 4)).toBe(2);
    expect(jobPriority({}, 4)).toBe(4);
    // 0 is Temporal's "unset"
    expect(jobPriority({}, 0)).toBeUndefined();
    expect(jobPriority({}, undefined)).toBeUndefined();
    expect(taskPriority({}, 2)).toBe(2);
    expect(taskPriority({ priority: 5 }, 2)).toBe(5);
    expect(taskPriority({}, undefined)).toBeUndefined();
    expect(effectivePriority({})).toBe(3);
    expect(effectivePriority({ priority: 1 })).toBe(1);
  });

  it("a nested job runs at its own priority, else its task's, else its parent job's", () => {
    expect(taskPriority({ priority: 4, job: { priority: 1 } }, 5)).toBe(1);
    expect(taskPriority({ priority: 4, job: {} }, 5)).toBe(4);
    expect(taskPriority({ job: {} }, 2)).toBe(2);
    // and its tasks then default to that level
    const nested = withTaskPriorities({ tasks: [task('x'), task('y', { priority: 5 })] }, taskPriority({ job: {} }, 2));
    expect(nested.tasks.map((t) => t.priority)).toEqual([2, 5]);
  });

  it("a research-contract rank is relative to the job: rank 1 runs at the job's level, each rank after it one step later, capped at 5", () => {
    expect(taskPriority({ research: { priority: 1 } }, 2)).toBe(2);
    expect(taskPriority({ research: { priority: 3 } }, 2)).toBe(4);
    expect(taskPriority({ research: { priority: 1000 } }, 2)).toBe(5);
    expect(taskPriority({ research: { priority: 1 } }, undefined)).toBe(3);
    // a priority of its own wins
    expect(taskPriority({ priority: 1, research: { priority: 4 } }, 3)).toBe(1);
  });

  it("a research entry inside a job gets its rank from the contract's `priority`", () => {
    const budget = { latency_seconds: 60, cost_usd: 1, tool_calls: 5 };
    const spec = JobSpecSchema.parse({
      pattern: 'fanout',
      priority: 1,
      tasks: [
        { contract: 'research-subtask', id: 'r1', question: 'first', budget, agent: 'sim' },
        { contract: 'research-subtask', id: 'r2', question: 'second', budget, agent: 'sim', priority: 3 },
      ],
    });
    expect(withTaskPriorities(spec, undefined).tasks.map((t) => t.priority)).toEqual([1, 3]);
  });

  it('resolves every task once; a job where nothing sets a priority is returned as it was', () => {
    const plain = JobSpecSchema.parse({ pattern: 'fanout', tasks: [task('a'), task('b')] });
    expect(withTaskPriorities(plain, undefined)).toBe(plain);
    const urgent = JobSpecSchema.parse({ pattern: 'fanout', priority: 1, tasks: [task('a'), task('b', { priority: 4 })] });
    const resolved = withTaskPriorities(urgent, 3);
    expect(resolved.tasks.map((t) => t.priority)).toEqual([1, 4]);
    expect(urgent.tasks[0]!.priority).toBeUndefined();
    // started through Temporal at a priority, without one in the spec
    expect(withTaskPriorities(plain, 2).tasks.map((t) => t.priority)).toEqual([2, 2]);
  });
});
