import { describe, expect, it } from 'vitest';
import { SCOUT_ANSWER_JSON_SCHEMA, type ScoutAnswer } from '../../schemas/scout';
import { runJob, uniqueId } from '../helpers';

// the test worker's scout root is its working directory: the repository
const paths = ['test/fixtures/scout-tree'];

describe('the offline scout on the shared worker', () => {
  it('runs as a subtask with both tools in scope and its answer passes the scout outputSchema', async () => {
    const r = await runJob({
      jobId: uniqueId('scout'),
      pattern: 'fanout',
      tasks: [
        {
          id: 's',
          question: 'where is `computeBackoff` defined?',
          agent: { capability: 'scout' },
          params: { paths },
          scope: ['read_file', 'grep'],
          outputSchema: SCOUT_ANSWER_JSON_SCHEMA,
        },
      ],
    });
    const t = r.results[0];
    expect(t).toMatchObject({ agentId: 'scout', status: 'success', failureReason: null, metrics: { steps: 1 } });
    expect((t.data as ScoutAnswer).findings[0]).toMatchObject({ file: 'test/fixtures/scout-tree/src/lib/backoff.ts', line: 8 });
    expect(t.metrics.toolCalls).toBeGreaterThanOrEqual(2);
  });

  it('is denied before it runs when the task scope lacks one of its tools', async () => {
    const r = await runJob({
      jobId: uniqueId('scoutdenied'),
      pattern: 'fanout',
      tasks: [{ id: 's', question: 'where is `computeBackoff` defined?', agent: 'scout', params: { paths }, scope: ['read_file'] }],
    });
    expect(r.results[0]).toMatchObject({ status: 'failure', failureReason: 'tool_denied', metrics: { attempts: 1, toolCalls: 0 } });
    expect(r.results[0].errors[0]).toContain('grep');
  });
});
