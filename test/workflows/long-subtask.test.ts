import { describe, expect, it } from 'vitest';
import { startJob, uniqueId } from '../helpers';

// the long loops (hundreds of steps, continue-as-new) are in long-subtask.soak.test.ts (`npm run test:soak`)
describe('a job\'s maximum duration', () => {
  it('a job past its maximum duration starts nothing more: the stages left end with timeout', async () => {
    const jobId = uniqueId('deadline');
    const handle = await startJob(
      {
        jobId,
        pattern: 'pipeline',
        tasks: [
          { id: 'slow', question: 'q1', agent: 'sim', params: { steps: 1000, latencyMs: 100 } },
          { id: 'after', question: 'q2', agent: 'sim' },
        ],
      },
      { maxDurationSeconds: 5 },
    );
    const r = await handle.result();
    expect(r.results.map((x) => [x.id, x.status, x.failureReason])).toEqual([
      ['slow', 'partial', 'timeout'],
      ['after', 'failure', 'skipped'],
    ]);
  }, 300_000);
});
