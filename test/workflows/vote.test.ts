import { describe, expect, it } from 'vitest';
import { runJob, uniqueId } from '../helpers';

const voter = (id: string, params: Record<string, unknown>) => ({ id, question: 'Capital of France?', agent: 'sim', params });

describe('vote', () => {
  it('majority of 5: three agree fast, the two slow voters are cancelled and the money saved', async () => {
    // the slow voters never answer (hang until cancelled): the job ends only because the early decision cancels them
    const r = await runJob({
      jobId: uniqueId('vmaj'),
      pattern: 'vote',
      vote: { strategy: 'majority' },
      budget: { costUsd: 1 },
      tasks: [
        voter('f1', { answer: 'Paris' }),
        voter('slow1', { answer: 'Lyon', hang: true, costUsd: 0.01 }),
        voter('f2', { answer: ' paris', latencyMs: 100 }),
        voter('slow2', { answer: 'Lyon', hang: true, costUsd: 0.01 }),
        voter('f3', { answer: 'PARIS', latencyMs: 200 }),
      ],
    });
    expect(r.status).toBe('success');
    expect(r.output).toBe('Paris');
    expect(r.vote).toMatchObject({ winner: 'Paris', agreement: 1, decidedEarly: true, cancelled: 2 });
    expect(r.vote!.tally).toEqual([{ ballot: 'Paris', key: '"paris"', count: 3, weight: expect.closeTo(2.7) }]);
    expect(r.results.map((x) => [x.id, x.status, x.failureReason])).toEqual([
      ['f1', 'success', null],
      ['slow1', 'failure', 'cancelled'],
      ['f2', 'success', null],
      ['slow2', 'failure', 'cancelled'],
      ['f3', 'success', null],
    ]);
    expect(r.metrics.costUsd).toBe(0);
    expect(r.metrics.savedUsd).toBeGreaterThan(0);
  });

  it('weighted: the winner holds more than half of the weight cast (or vote.threshold); confidence, not the head count', async () => {
    const ballots = (jobId: string, xConfidence: number, threshold?: number) => ({
      jobId,
      pattern: 'vote' as const,
      vote: { strategy: 'weighted' as const, key: '/answer', ...(threshold ? { threshold } : {}) },
      maxParallel: 1, // one at a time, the dissenter first: every voter is counted
      tasks: [
        voter('c', { answer: { answer: 'y' }, confidence: 0.95 }),
        voter('a', { answer: { answer: 'x', why: 'because' }, confidence: xConfidence }),
        voter('b', { answer: { answer: 'X', why: 'me too' }, confidence: xConfidence }),
      ],
    });
    // 2 × 0.9 = 1.8 of 2.75 cast
    const sure = await runJob(ballots(uniqueId('vw-sure'), 0.9));
    expect(sure.status).toBe('success');
    expect(sure.output).toBe('x');
    expect(sure.vote).toMatchObject({ winner: 'x', agreement: 2 / 3, decidedEarly: false, cancelled: 0 });
    expect(sure.vote!.tally.map((t) => [t.ballot, t.count, +t.weight.toFixed(2)])).toEqual([
      ['x', 2, 1.8],
      ['y', 1, 0.95],
    ]);
    // one voter at 0.95 against two at 0.1: 0.95 of 1.15 cast elects y, the head-count minority
    const confident = await runJob(ballots(uniqueId('vw-one'), 0.1));
    expect(confident.status).toBe('success');
    expect(confident.output).toBe('y');
    expect(confident.vote).toMatchObject({ winner: 'y', agreement: 1 / 3 });
    // 1.2 of 2.15 (56%) passes half, not a threshold of 0.6
    expect((await runJob(ballots(uniqueId('vw-half'), 0.6))).output).toBe('x');
    const strict = await runJob(ballots(uniqueId('vw-strict'), 0.6, 0.6));
    expect(strict.status).toBe('failure');
    expect(strict.vote).toMatchObject({ winner: null, agreement: 0 });
    expect(strict.vote!.tally.map((t) => [t.ballot, t.count])).toEqual([
      ['x', 2],
      ['y', 1],
    ]);
  });

  it('a 2-2 tie has no winner: failure, with the tally kept', async () => {
    const r = await runJob({
      jobId: uniqueId('vtie'),
      pattern: 'vote',
      tasks: [
        voter('a1', { answer: { city: 'Paris', country: 'FR' } }),
        voter('b1', { answer: 'Lyon' }),
        voter('a2', { answer: { country: 'FR', city: 'Paris' }, latencyMs: 100 }),
        voter('b2', { answer: 'lyon', latencyMs: 100 }),
      ],
    });
    expect(r.status).toBe('failure');
    expect(r.output).toBeNull();
    expect(r.vote).toMatchObject({ winner: null, agreement: 0, decidedEarly: false, cancelled: 0 });
    expect(r.vote!.tally.map((t) => [t.ballot, t.count])).toEqual(
      expect.arrayContaining([
        [{ city: 'Paris', country: 'FR' }, 2],
        ['Lyon', 2],
      ]),
    );
    expect(r.results.every((x) => x.status === 'success')).toBe(true);
  });

  it('unanimous: one dissenter ends the vote at once; failed voters cast no ballot', async () => {
    const r = await runJob({
      jobId: uniqueId('vuna'),
      pattern: 'vote',
      vote: { strategy: 'unanimous' },
      maxParallel: 1,
      tasks: [
        voter('y1', { answer: 'Yes' }),
        voter('broken', { fatal: true }),
        voter('y2', { answer: 'yes ' }),
        voter('no', { answer: 'no' }),
        voter('y3', { answer: 'yes' }),
      ],
    });
    expect(r.status).toBe('failure');
    expect(r.vote).toMatchObject({ winner: null, decidedEarly: true, cancelled: 1 });
    expect(r.vote!.tally.map((t) => [t.ballot, t.count])).toEqual([
      ['Yes', 2],
      ['no', 1],
    ]);
    expect(r.results.map((x) => [x.id, x.status, x.failureReason])).toEqual([
      ['y1', 'success', null],
      ['broken', 'failure', 'agent_error'],
      ['y2', 'success', null],
      ['no', 'success', null],
      ['y3', 'failure', 'cancelled'],
    ]);
  });

  it('unanimous: every voter that answered agrees (a failed voter does not break it)', async () => {
    const r = await runJob({
      jobId: uniqueId('vuna-ok'),
      pattern: 'vote',
      vote: { strategy: 'unanimous' },
      tasks: [voter('y1', { answer: 'Yes' }), voter('broken', { fatal: true }), voter('y2', { answer: 'yes' })],
    });
    expect(r.status).toBe('success');
    expect(r.vote).toMatchObject({ winner: 'Yes', agreement: 1, decidedEarly: false, cancelled: 0 });
  });
});
