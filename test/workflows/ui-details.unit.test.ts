import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SEARCH_ATTRIBUTE_DEFINITIONS, taskOutcome } from '../../core/search-attributes';
import { jobDetails, staticSummary, subtaskDetails } from '../../workflows/ui-details';
import { emptyProgress } from '../../core/progress';
import { newLedger, snapshot } from '../../core/budget-ledger';

describe('what the Temporal UI shows', () => {
  it('a summary reads task-id · agent · question, on one line, cut at 120 characters', () => {
    expect(staticSummary({ id: 'v3', question: 'Capital\nof  France?' }, 'sim')).toBe('v3 · sim · Capital of France?');
    const long = staticSummary({ id: 't', question: 'x'.repeat(500) }, 'echo');
    expect(long).toHaveLength('t · echo · '.length + 120);
    expect(long.endsWith('…')).toBe(true);
  });

  it('a subtask that did nothing because it was cut off says cancelled or stopped, not failure', () => {
    expect(taskOutcome({ status: 'failure', failureReason: 'cancelled' })).toBe('cancelled');
    expect(taskOutcome({ status: 'failure', failureReason: 'stopped' })).toBe('stopped');
    expect(taskOutcome({ status: 'failure', failureReason: 'budget_exhausted' })).toBe('failure');
    expect(taskOutcome({ status: 'partial', failureReason: 'stopped' })).toBe('partial');
    expect(taskOutcome({ status: 'success', failureReason: null })).toBe('success');
  });

  it('details are narrow tables: one column per axis, money in dollars, latency in seconds, ∞ for no limit', () => {
    const ledger = newLedger({ costUsd: 0.5, tokens: 1000 });
    ledger.spent.costUsd = 0.123456;
    const sub = subtaskDetails({
      taskId: 't',
      agentId: 'sim',
      phase: 'running',
      steps: 2,
      attempts: 3,
      ledger: snapshot(ledger, 1.25),
      lastError: 'boom\nagain',
    });
    expect(sub.split('\n')).toEqual([
      '**t** · sim · running',
      '',
      'step 2 · attempts 3',
      '',
      '|  | cost | tokens | tool calls | latency |',
      '| --- | --- | --- | --- | --- |',
      '| spent | $0.1235 | 0 | 0 | 1.3s |',
      '| limit | $0.5 | 1000 | ∞ | ∞ |',
      '',
      'last error: boom again',
      // the line the UI's details frame cuts off, so the last error stays visible
      '',
      '\u00a0',
    ]);
    const job = jobDetails('vote', 'j1', { ...emptyProgress(), total: 5, running: 2, succeeded: 3, completed: 3 }, snapshot(ledger, 0));
    expect(job).toContain('| 5 | 0 | 2 | 3 | 0 | 0 |');
    expect(job).toContain('| reserved | $0 | 0 | 0 | 0s |');
    expect(job.endsWith('| limit | $0.5 | 1000 | ∞ | ∞ |\n\n\u00a0')).toBe(true);
  });

  it("a routed subtask's details say which agent it went to and why", () => {
    const sub = subtaskDetails({
      taskId: 't',
      agentId: 'vision-b',
      phase: 'running',
      steps: 0,
      attempts: 0,
      ledger: snapshot(newLedger({}), 0),
      routing: { agent: 'vision-b', reason: 'load: pool pb backlog 0, 1 poller; cheaper than pool pa backlog 2' },
    });
    expect(sub.split('\n').slice(0, 5)).toEqual([
      '**t** · vision-b · running',
      '',
      'step 0 · attempts 0',
      '',
      'routed to vision-b: load: pool pb backlog 0, 1 poller; cheaper than pool pa backlog 2',
    ]);
  });

  it('the cluster (npm run cluster, docker-compose) registers every search attribute the workflows set, with its type', () => {
    // deploy/temporal-setup.sh registers deploy/temporal.env's list (test/deploy/compose.unit.test.ts checks it is exactly this)
    const settings = readFileSync(new URL('../../deploy/temporal.env', import.meta.url), 'utf8');
    for (const [name, type] of Object.entries(SEARCH_ATTRIBUTE_DEFINITIONS)) expect(settings).toContain(`${name}:${type}`);
  });
});
