import { describe, expect, it } from 'vitest';
import { startJob, uniqueId } from '../helpers';

// the long loops (hundreds of steps, continue-as-new) are in long-subtask.soak.test.ts (`npm run test:soak`)
describe("a job's maximum duration", () => {
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
    // the slow stage keeps what it did: partial once a step finished (on a loaded machine the deadline may come first)
    const slow = r.results[0];
    expect([slow.id, slow.status, slow.failureReason]).toEqual(['slow', slow.metrics.steps > 0 ? 'partial' : 'failure', 'timeout']);
    expect([r.results[1].id, r.results[1].status, r.results[1].failureReason]).toEqual(['after', 'failure', 'skipped']);
  }, 300_000);
});
