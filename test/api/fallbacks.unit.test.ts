/** Fallbacks at submission: unknown or unfit fallback agents are refused by path; a capability task routed by load inherits the capability's other agents. */
import { describe, expect, it } from 'vitest';
import { builtinAgents, createAgentRegistry, createHttpAgent } from '../../activities';
import { checkRunnable, resolveAgents } from '../../api/spec-check';
import type { JobSpec } from '../../schemas';

const http = (id: string, capabilities: string[], extra: object = {}) =>
  createHttpAgent({ id, url: `http://127.0.0.1:9/${id}`, capabilities, ...extra });
const registry = createAgentRegistry([
  ...builtinAgents,
  http('alpha', ['research']),
  http('beta', ['research']),
  http('gamma', ['research'], { inputSchema: { type: 'object', properties: { depth: { type: 'number' } }, additionalProperties: false } }),
  http('delta', ['math']),
]);
const job = (tasks: JobSpec['tasks']): JobSpec => ({ pattern: 'fanout', tasks });

describe('fallbacks at submission', () => {
  it('refuses unknown fallback agents and ones that cannot take the task, at tasks[i].fallback[j]', () => {
    const errors = checkRunnable(
      job([
        { id: 'a', question: 'q', agent: 'alpha', fallback: ['beta', 'nobody'] },
        { id: 'b', question: 'q', agent: 'alpha', params: { colour: 'red' }, fallback: ['gamma', 'echo'] },
      ]),
      registry,
      3,
    );
    expect(errors.map((e) => e.path)).toEqual(['tasks[0].fallback[1]', 'tasks[1].fallback[0]', 'tasks[1].fallback[1]']);
    expect(errors[0].message).toContain('unknown agent "nobody"');
    expect(errors[1].message).toContain('agent "gamma" does not take the task\'s params');
  });

  it("refuses an agent twice in the list, and the task's own agent, at its index", () => {
    const errors = checkRunnable(job([{ id: 'a', question: 'q', agent: 'alpha', fallback: ['beta', 'alpha', 'beta'] }]), registry, 3);
    expect(errors).toEqual([
      { path: 'tasks[0].fallback[1]', message: 'agent "alpha" is the task\'s own agent' },
      { path: 'tasks[0].fallback[2]', message: 'agent "beta" is already at fallback[0]' },
    ]);
  });

  it('leaves a capability task as it is: its agent and inherited fallbacks are decided when it is routed', () => {
    const { spec } = resolveAgents(
      job([
        { id: 'cap', question: 'q', agent: { capability: 'research' } },
        { id: 'byId', question: 'q', agent: 'alpha' },
      ]),
      registry,
    );
    expect(spec.tasks[0]).toEqual({ id: 'cap', question: 'q', agent: { capability: 'research' } });
    expect(spec.tasks[1].fallback).toBeUndefined();
  });
});
