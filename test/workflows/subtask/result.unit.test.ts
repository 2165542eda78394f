/** The loop's outcome and its TaskResult: success / partial / failure, caps, the role report, the research mapping. */
import { describe, expect, it } from 'vitest';
import type { TaskResult } from '../../../schemas';
import { hostRules } from '../../../workflows/subtask/host-rules';
import { halt } from '../../../workflows/subtask/halt';
import { MAX_RESULT_BYTES, notResolvedResult, outcomeOf, taskResult } from '../../../workflows/subtask/result';
import { MAX_LIST_BYTES } from '../../../workflows/subtask/state';
import { leaveAgent } from '../../../workflows/subtask/fallback';
import { ev, running, T0, task, usage } from './fixtures';

const v1 = hostRules(1, []);
const v0 = hostRules(undefined, []);

describe('outcomeOf', () => {
  it('is success without a halt, partial for a halt with work, failure for one without', () => {
    const s = running();
    expect(outcomeOf(s, v1)).toBe('success');
    halt(s, 'agent_error');
    expect(outcomeOf(s, v1)).toBe('failure');
    for (const work of [(x: typeof s) => (x.steps = 1), (x: typeof s) => (x.evidence = [ev('a')]), (x: typeof s) => (x.data = 0)]) {
      const w = running();
      work(w);
      halt(w, 'stopped');
      expect(outcomeOf(w, v1)).toBe('partial');
    }
  });

  it('makes a budget halt partial also before the first step, under host rules 1 only', () => {
    const s = running();
    halt(s, 'budget_exhausted');
    expect(outcomeOf(s, v1)).toBe('partial');
    expect(outcomeOf(s, v0)).toBe('failure');
  });
});

describe('taskResult', () => {
  it('reports the answer, the spend, the metrics and why it halted', () => {
    const s = running({ allocation: { costUsd: 1 } });
    Object.assign(s, {
      steps: 2,
      attempts: 3,
      summary: 'found it',
      data: { v: 1 },
      confidence: 0.8,
      stoppedBy: 'confidence >= 0.8',
      channels: new Set(['web']),
    });
    s.ledger.spent = usage({ costUsd: 0.25, tokens: 40, toolCalls: 2 });
    s.citations.push('a', 'a', 'b');
    s.notes.push('n1');
    s.routing = { agent: 'agent-a', reason: 'named' };
    const r = taskResult(s, { task: task({ priority: 3 }), rules: v1, jobId: 'job-1', now: T0 + 1234 });
    expect(r).toEqual({
      id: 't1',
      agentId: 'agent-a',
      status: 'success',
      summary: 'found it',
      data: { v: 1 },
      evidence: [],
      citations: ['a', 'b'],
      followUps: [],
      confidence: 0.8,
      metrics: { latencyMs: 1234, costUsd: 0.25, tokens: 40, toolCalls: 2, steps: 2, attempts: 3, channelsHit: ['web'] },
      failureReason: null,
      errors: [],
      priority: 3,
      stoppedBy: 'confidence >= 0.8',
      notes: ['n1'],
      routing: { agent: 'agent-a', reason: 'named' },
    });
  });

  it('says "no answer" and zero confidence for a failure; caps lists and errors', () => {
    const s = running();
    s.confidence = 0.9;
    s.errors.push(...Array.from({ length: 60 }, (_, i) => `${i} ${'e'.repeat(3000)}`));
    s.followUps.push(...Array.from({ length: 5000 }, (_, i) => `follow-up ${i} ${'f'.repeat(20)}`));
    halt(s, 'agent_error');
    const r = taskResult(s, { task: task(), rules: v1, jobId: 'j', now: T0 });
    expect(r).toMatchObject({ status: 'failure', summary: 'no answer: agent_error', confidence: 0, failureReason: 'agent_error' });
    expect(r.errors).toHaveLength(50);
    expect(r.errors[0]).toHaveLength(2000);
    expect(JSON.stringify(r.followUps).length).toBeLessThanOrEqual(MAX_LIST_BYTES);
  });

  it("adds the role host's report before the research mapping sees the result", () => {
    const s = running({ task: task({ research: { parentId: 'p' } }) });
    s.steps = 1;
    s.summary = 'One. Two. Three.';
    const seen: string[] = [];
    const finishRole = (r: TaskResult) => {
      seen.push(r.research ? 'after' : 'before');
      r.status = 'partial';
    };
    const r = taskResult(s, { task: task({ research: { parentId: 'p' } }), rules: v1, jobId: 'j', now: T0, finishRole });
    expect(seen).toEqual(['before']);
    expect(r.research?.status).toBe('partial');
  });

  it('maps a research task to the contract: a budget halt is partial, the stop condition and the root job named, seed left out', () => {
    const seed = [ev('s', { url: 'https://seed' })];
    const t = task({ research: { parentId: 'parent-1' }, contextSeed: seed });
    const s = running({ task: t, allocation: { tokens: 5 } });
    s.evidence = [ev('s2', { url: 'https://seed' }), ev('n', { url: 'https://new' })];
    s.citations.push('https://new');
    s.stoppedBy = 'budget exhausted';
    halt(s, 'budget_exhausted');
    const r = taskResult(s, { task: t, rules: v1, jobId: 'root-job', now: T0 });
    expect(r.status).toBe('partial');
    expect(r.research).toMatchObject({
      id: 't1',
      status: 'partial',
      citations: ['https://new'],
      failure_reason: 'budget_exhausted',
      delegate: { parent_id: 'parent-1', job_id: 'root-job', stopped_by: 'budget exhausted', dropped: { seed_duplicates: 1 } },
    });
    expect(r.research?.evidence.map((e) => e.url)).toEqual(['https://new']);
    expect(taskResult(running(), { task: task(), rules: v1, jobId: 'j', now: T0 }).research).toBeUndefined();
  });

  it('drops the data of a result past the payload cap, also from the research output, and says so', () => {
    const t = task({ research: { parentId: null } });
    const s = running({ task: t });
    s.steps = 1;
    s.data = 'd'.repeat(MAX_RESULT_BYTES);
    const r = taskResult(s, { task: t, rules: v1, jobId: 'j', now: T0 });
    expect(r.data).toBeUndefined();
    expect(r.research?.delegate.data).toBeUndefined();
    expect(r.errors.at(-1)).toBe(`data dropped: the result passed ${MAX_RESULT_BYTES} bytes`);
  });
});

describe('notResolvedResult', () => {
  it('is a failure that never ran, with its latency and, after fallbacks, the agents tried', () => {
    const s = running({ task: task({ fallback: ['b'] }) });
    const plain = notResolvedResult(s, task(), { reason: 'no_agent', attempts: 1, message: 'no agent "agent-a"' }, T0 + 50);
    expect(plain).toMatchObject({
      status: 'failure',
      failureReason: 'no_agent',
      summary: 'no agent "agent-a"',
      errors: ['no agent "agent-a"'],
      metrics: { latencyMs: 50, steps: 0 },
    });
    expect(plain.agentsTried).toBeUndefined();
    leaveAgent(s, 'agent-a', 'no_agent', 'gone');
    s.errors.push('gone', 'fallback agent "b": gone too');
    const tried = notResolvedResult(s, task(), { reason: 'no_agent', attempts: 1, message: 'gone' }, T0);
    expect(tried.agentsTried).toEqual([{ agent: 'agent-a', outcome: 'failure', reason: 'no_agent', error: 'gone' }]);
    expect(tried.errors).toEqual(['gone', 'fallback agent "b": gone too']);
  });
});
