import { describe, expect, it } from 'vitest';
import { nestedRoutes, routeKey, submittedRouting } from '../../core/routing';
import type { TaskSpec } from '../../schemas';

const manifest = { id: 'sim', version: '1', kind: 'builtin', limits: { timeoutSeconds: 30 }, retry: {} } as never;
const task = (agent: TaskSpec['agent']): TaskSpec => ({ id: 't', question: 'q', agent }) as TaskSpec;

describe('why a task runs the agent resolved at submission', () => {
  it('the route the API took when it chose the agent; otherwise what the reference says', () => {
    expect(submittedRouting(task('sim'), manifest, 'semantic: bm25 0.47 ≥ 0.30')).toEqual({
      agent: 'sim',
      reason: 'semantic: bm25 0.47 ≥ 0.30',
    });
    expect(submittedRouting(task('sim'), manifest)).toEqual({ agent: 'sim', reason: 'named' });
    expect(submittedRouting(task({ capability: 'c' }), manifest).reason).toBe('only agent with capability c');
  });

  it('keys tasks by their path of ids; a nested job reads those below its task, keyed from there', () => {
    const routes = {
      [routeKey(['a'])]: 'x',
      [routeKey(['outer', 'inner'])]: 'y',
      [routeKey(['outer', 'deep', 'leaf'])]: 'z',
      'outer2/b': 'w',
    };
    expect(routeKey(['outer', 'inner'])).toBe('outer/inner');
    expect(nestedRoutes(routes, 'outer')).toEqual({ inner: 'y', 'deep/leaf': 'z' });
    expect(nestedRoutes(nestedRoutes(routes, 'outer'), 'deep')).toEqual({ leaf: 'z' });
    expect(nestedRoutes(routes, 'a')).toBeUndefined();
    expect(nestedRoutes(undefined, 'outer')).toBeUndefined();
  });
});
