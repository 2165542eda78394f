import { describe, expect, it } from 'vitest';
import { runJob, uniqueId } from '../helpers';

const redos = { type: 'string', pattern: '^(a+)+$' };
const numberSchema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };

describe('outputSchema inside the worker (jobs started straight through Temporal)', () => {
  it('checks ^(a+)+$ against a 41-character answer at once: invalid_output, and success for a matching answer', async () => {
    const started = Date.now();
    const r = await runJob({
      jobId: uniqueId('redos'),
      pattern: 'fanout',
      tasks: [
        { id: 'evil', question: 'q', agent: 'sim', params: { answer: `${'a'.repeat(40)}b` }, outputSchema: redos },
        { id: 'fine', question: 'q', agent: 'sim', params: { answer: 'a'.repeat(40) }, outputSchema: redos },
      ],
    });
    const [evil, fine] = r.results;
    expect(evil).toMatchObject({ status: 'failure', failureReason: 'invalid_output', metrics: { attempts: 2 } });
    expect(evil.errors[0]).toContain('data must match pattern "^(a+)+$"');
    expect(fine).toMatchObject({ status: 'success', data: 'a'.repeat(40) });
    // a backtracking engine needs ~2^40 steps for the evil answer: hours, not this test's minute
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it('ends a schema that does not compile with invalid_output before the agent spends anything, without a re-prompt', async () => {
    const r = await runJob({
      jobId: uniqueId('nocompile'),
      pattern: 'fanout',
      tasks: [
        { id: 'type', question: 'q', agent: 'sim', params: { costUsd: 0.01 }, outputSchema: { type: 'nope' } },
        { id: 'backref', question: 'q', agent: 'sim', params: { costUsd: 0.01 }, outputSchema: { type: 'string', pattern: '(a)\\1' } },
      ],
    });
    for (const t of r.results) {
      expect(t).toMatchObject({ status: 'failure', failureReason: 'invalid_output', metrics: { attempts: 1, steps: 0, costUsd: 0 } });
      expect(t.errors).toHaveLength(1);
      expect(t.errors[0]).toMatch(/^invalid outputSchema: /);
    }
    expect(r.results[1].errors[0]).toContain('not RE2 syntax');
  });

  it('books the spend of outputs the schema refused: two paid attempts, then invalid_output', async () => {
    const r = await runJob({
      jobId: uniqueId('paidbad'),
      pattern: 'fanout',
      tasks: [
        { id: 't', question: 'q', agent: 'sim', params: { answer: { n: 'one' }, costUsd: 0.01, tokens: 100 }, outputSchema: numberSchema },
      ],
    });
    const t = r.results[0];
    expect(t).toMatchObject({ status: 'failure', failureReason: 'invalid_output', metrics: { attempts: 2, tokens: 200 } });
    expect(t.metrics.costUsd).toBeCloseTo(0.02, 6);
    expect(r.metrics.costUsd).toBeCloseTo(0.02, 6);
  });

  it('stops at the budget when a refused output spent it: one call against a $0.01 budget, not twenty', async () => {
    const r = await runJob({
      jobId: uniqueId('budgetbad'),
      pattern: 'fanout',
      tasks: [
        {
          id: 't',
          question: 'q',
          agent: 'sim',
          params: { answer: { n: 'one' }, costUsd: 0.01 },
          outputSchema: numberSchema,
          budget: { costUsd: 0.01 },
          retry: { maxAttempts: 20, initialIntervalSeconds: 0.1, backoffCoefficient: 1, maximumIntervalSeconds: 0.1 },
        },
      ],
    });
    const t = r.results[0];
    // a budget halt is partial, also with no step completed (the research contract's rule, host rules 1)
    expect(t).toMatchObject({ status: 'partial', failureReason: 'budget_exhausted', metrics: { attempts: 1, steps: 0 } });
    expect(t.metrics.costUsd).toBeCloseTo(0.01, 6);
    expect(t.errors[0]).toContain('data/n must be number');
    expect(t.errors[1]).toBe('costUsd budget spent before the first step');
  });
});
