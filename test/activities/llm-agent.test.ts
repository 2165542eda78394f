import { describe, expect, it } from 'vitest';
import { runJob, uniqueId } from '../helpers';

describe('LLM agents (OpenAI-compatible endpoint, here a local fake provider)', () => {
  it('runs a tool-using model turn by turn, booking tokens, cost and tool calls', async () => {
    const r = await runJob({
      jobId: uniqueId('llm'),
      pattern: 'fanout',
      tasks: [{ id: 't', question: 'capital of France', agent: 'researcher', scope: ['search'] }],
    });
    const t = r.results[0];
    expect(t).toMatchObject({ status: 'success', data: { answer: 'results for capital of France' }, metrics: { steps: 2, toolCalls: 1 } });
    expect(t.metrics.tokens).toBeGreaterThan(0);
    expect(t.metrics.costUsd).toBeCloseTo(((t.metrics.tokens - 24) * 1000) / 1e6 + (24 * 2000) / 1e6, 9);
    expect(t.metrics.channelsHit).toEqual(expect.arrayContaining(['search', 'scripted']));
  });

  it('offers the model only the tools in the task scope', async () => {
    const r = await runJob({
      jobId: uniqueId('llmnoscope'),
      pattern: 'fanout',
      tasks: [{ id: 't', question: 'capital of Italy', agent: 'researcher' }],
    });
    expect(r.results[0]).toMatchObject({
      status: 'success',
      data: { answer: 'direct: capital of Italy' },
      metrics: { steps: 1, toolCalls: 0 },
    });
  });

  it('denies a tool the model asks for outside the scope, without retrying', async () => {
    const r = await runJob({
      jobId: uniqueId('rogue'),
      pattern: 'fanout',
      tasks: [{ id: 't', question: 'q', agent: 'rogue-llm', scope: ['search'] }],
    });
    expect(r.results[0]).toMatchObject({ status: 'failure', failureReason: 'tool_denied', metrics: { attempts: 1 } });
    expect(r.results[0].errors[0]).toContain('"shell"');
  });

  it('tells the model the tokens it has left and halts when they are spent', async () => {
    const r = await runJob({
      jobId: uniqueId('llmbudget'),
      pattern: 'fanout',
      tasks: [{ id: 't', question: 'capital of Spain', agent: 'researcher', scope: ['search'], budget: { tokens: 40 } }],
    });
    const t = r.results[0];
    expect(t.failureReason).toBe('budget_exhausted');
    expect(t.metrics.steps).toBe(1);
    expect(t.metrics.tokens).toBeGreaterThanOrEqual(40);
  });
});
