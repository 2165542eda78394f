import { describe, expect, it } from 'vitest';
import { runJob, uniqueId } from '../helpers';

const schema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };

describe('the host checks the output contract', () => {
  it('accepts data that satisfies outputSchema', async () => {
    const r = await runJob({
      jobId: uniqueId('outok'),
      pattern: 'fanout',
      tasks: [{ id: 't', question: 'n?', agent: 'sim', params: { answer: { n: 1 } }, outputSchema: schema }],
    });
    expect(r.results[0]).toMatchObject({ status: 'success', data: { n: 1 } });
  });

  it('re-prompts once on invalid output, then fails with invalid_output', async () => {
    const r = await runJob({
      jobId: uniqueId('outbad'),
      pattern: 'fanout',
      tasks: [{ id: 't', question: 'n?', agent: 'sim', params: { answer: { n: 'one' } }, outputSchema: schema }],
    });
    const t = r.results[0];
    expect(t).toMatchObject({ status: 'failure', failureReason: 'invalid_output', metrics: { attempts: 2, steps: 0 } });
    expect(t.errors).toHaveLength(2);
    expect(t.errors[0]).toContain('data/n must be number');
  });

  it('a re-prompt that fixes the output ends in a success with no errors: the first error is a note', async () => {
    const r = await runJob({
      jobId: uniqueId('outfixed'),
      pattern: 'fanout',
      tasks: [{ id: 't', question: 'n?', agent: 'sim', params: { answer: { n: 'one' }, repromptAnswer: { n: 1 } }, outputSchema: schema }],
    });
    const t = r.results[0];
    expect(t).toMatchObject({ status: 'success', failureReason: null, data: { n: 1 }, metrics: { attempts: 2, steps: 1 } });
    expect(t.errors).toEqual([]);
    expect(t.notes).toEqual([expect.stringMatching(/^re-prompted after: .*data\/n must be number/)]);
  });

  it('routes by capability and by a semantic hint, and reports no_agent when nothing matches', async () => {
    const r = await runJob({
      jobId: uniqueId('route'),
      pattern: 'fanout',
      tasks: [
        { id: 'cap', question: 'q', agent: { capability: 'echo' } },
        { id: 'sem', question: 'simulate a deterministic test', agent: { route: 'semantic', hint: 'deterministic simulated agent' } },
        { id: 'none', question: 'q', agent: 'nobody' },
      ],
    });
    expect(r.results.map((x) => [x.id, x.agentId, x.status, x.failureReason])).toEqual([
      ['cap', 'echo', 'success', null],
      ['sem', 'sim', 'success', null],
      ['none', 'nobody', 'failure', 'no_agent'],
    ]);
  });
});
