/**
 * The identical-subtask cache's pure rules and its key: which tasks it covers, that equal parts give
 * one key whatever the order of their fields and that any part (or the tenant) changes it, and the
 * result a hit is served as.
 */
import { describe, expect, it } from 'vitest';
import { cacheKey, canonicalJson } from '../../activities/result-cache';
import { cachedPlan } from '../../api/forecast-thread-plan';
import { cacheKeyParts, cacheOf, servedResult } from '../../core/result-cache';
import { forecastPlan } from '../../core/forecast';
import { originOfTask, toResearchOutput } from '../../core/research-output';
import type { TaskSpec } from '../../schemas';
import { taskResult } from '../task-result';

const agent = { id: 'pricey', version: '1.0.0' };
const task: TaskSpec = { id: 't1', question: 'why?', agent: 'pricey', params: { b: 2, a: 1 } };
const keyOf = (t: TaskSpec, tenant = 'acme', model = {}, context = {}) => cacheKey(tenant, cacheKeyParts(t, agent, model, context));

describe('result cache rules', () => {
  it('covers agent tasks with their own cache or their job’s, not nested jobs or role tasks', () => {
    const cache = { ttlSeconds: 60, scope: 'tenant' as const };
    expect(cacheOf(task, {})).toBeUndefined();
    expect(cacheOf(task, { cache })).toBe(cache);
    expect(cacheOf({ ...task, cache: { ...cache, ttlSeconds: 5 } }, { cache })).toMatchObject({ ttlSeconds: 5 });
    expect(cacheOf({ id: 'n', question: 'q', job: { pattern: 'fanout', tasks: [] } }, { cache })).toBeUndefined();
    expect(cacheOf({ id: 'r', question: 'q', role: 'critic', taskType: 'review' }, { cache })).toBeUndefined();
  });

  it('writes canonical JSON: keys sorted at every depth, undefined members dropped', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: undefined, x: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"x":2,"z":1}]},"b":1}',
    );
  });

  it('gives identical subtasks one key, whatever the task id or the order of params', () => {
    expect(keyOf({ ...task, id: 'other', params: { a: 1, b: 2 } })).toBe(keyOf(task));
    expect(keyOf(task)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('changes the key with the tenant, the agent version, the question, params, context, output schema, model, rationale or stop conditions', () => {
    const base = keyOf(task);
    expect(keyOf(task, 'other')).not.toBe(base);
    expect(cacheKey('acme', cacheKeyParts(task, { ...agent, version: '1.0.1' }, {}))).not.toBe(base);
    expect(keyOf({ ...task, question: 'why not?' })).not.toBe(base);
    expect(keyOf({ ...task, params: { a: 1, b: 3 } })).not.toBe(base);
    expect(keyOf({ ...task, contextSeed: [{ id: 'e1', source: 's', snippet: 'x' }] })).not.toBe(base);
    expect(keyOf(task, 'acme', {}, { previous: { id: 's1', summary: 'done', evidence: [] } })).not.toBe(base);
    expect(keyOf({ ...task, outputSchema: { type: 'object' } })).not.toBe(base);
    expect(keyOf(task, 'acme', { model: 'fake-mini' })).not.toBe(base);
    expect(keyOf({ ...task, rationale: 'for the release notes' })).not.toBe(base);
    expect(keyOf({ ...task, stopConditions: ['three sources agree'] })).not.toBe(base);
  });

  it('serves a stored success as the task’s own result: its id, nothing spent, where it came from', () => {
    const stored = taskResult(
      'orig',
      { x: 1 },
      { traceId: 'a'.repeat(32), metrics: { ...taskResult('o', 0).metrics, costUsd: 0.5, tokens: 900 } },
    );
    const r = servedResult(stored, { id: 't7' }, 'job-1', 3);
    expect(r).toMatchObject({ id: 't7', data: { x: 1 }, status: 'success' });
    expect(r.metrics).toMatchObject({ costUsd: 0, tokens: 0, steps: 0, latencyMs: 3, cached: true, cachedFrom: 'job-1' });
    expect(r.traceId).toBeUndefined();
  });

  it('serves a research task the stored output under its own id and parent_id, at no cost', () => {
    const ran = taskResult('orig', 'found', { metrics: { ...taskResult('o', 0).metrics, costUsd: 0.5, tokens: 900, latencyMs: 4000 } });
    ran.research = toResearchOutput(originOfTask({ id: 'orig', research: { parentId: 'p0' } }), ran, { jobId: 'job-1' });
    const r = servedResult(ran, { id: 't7', research: { parentId: 'p9' } }, 'job-1', 3);
    expect(r.research).toMatchObject({ id: 't7', summary: ran.research.summary, metrics: { cost_usd: 0, latency_ms: 3, tool_calls: 0 } });
    expect(r.research!.delegate).toMatchObject({ parent_id: 'p9', tokens: 0, job_id: 'job-1' });
    expect(servedResult(ran, { id: 't8' }, 'job-1', 3).research).toBeUndefined();
  });

  it('forecasts a cached task at zero on every axis, with certainty', () => {
    const f = forecastPlan({
      kind: 'job',
      id: 'job',
      pattern: 'fanout',
      budget: { costUsd: 1e-9 },
      children: [cachedPlan('t1', 'pricey', 'job-1')],
    });
    expect(f.job.children![0]).toMatchObject({ cachedFrom: 'job-1', history: true, predicted: { costUsd: { p50: 0, p90: 0 } } });
    expect(f.budgetSuffices).toBe(1);
    expect(f.job.runs).toBe(0);
  });
});
