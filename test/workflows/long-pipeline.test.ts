import { describe, expect, it } from 'vitest';
import type { JobResult } from '../../schemas';
import { finalResult, runsOf, startJob, testApp, uniqueId } from '../helpers';

const evidence = (id: string) => ({ id, source: 'web', snippet: `found ${id}` });

// the 600-stage pipeline is in long-pipeline.soak.test.ts (`npm run test:soak`)
describe('long pipelines continue as new', () => {
  it('10 stages, 3 per run: context, budget, evidence and results carry over; the API stitches every full result back', async () => {
    const jobId = uniqueId('pcan');
    const tasks = Array.from({ length: 10 }, (_, i) => ({
      id: `s${i}`,
      question: `stage ${i}`,
      agent: 'sim',
      params:
        i === 0
          ? { answer: { v: 'A' }, costUsd: 0.01, evidence: [evidence('e0')] }
          : { echoPrevious: true, costUsd: 0.01, evidence: [evidence(`e${i}`)] },
    }));
    const handle = await startJob({ jobId, pattern: 'pipeline', budget: { costUsd: 1 }, tasks }, { pipelineStagesPerRun: 3 }, 'default');
    const r = await handle.result();
    expect(r.status).toBe('success');
    expect(r.output).toEqual({ v: 'A' });
    expect(r.results.map((x) => x.status)).toEqual(Array(10).fill('success'));
    expect(r.metrics.costUsd).toBeCloseTo(0.1, 9);
    expect(r.budget?.ledger.costUsd).toMatchObject({ limit: 1, reserved: 0 });
    expect(r.budget!.ledger.costUsd.spent).toBeCloseTo(0.1, 9);
    expect(r.evidence.map((e) => e.id)).toEqual(tasks.map((_, i) => `e${i}`));
    expect(r.batches?.map((b) => [b.id, b.kind])).toEqual(tasks.map((t) => [t.id, 'subtask']));
    const runs = await runsOf(`job/default/${jobId}`);
    expect(runs.length).toBe(4);

    const app = await testApp();
    try {
      const res = await finalResult(app, jobId);
      expect(res.statusCode).toBe(200);
      const full = res.json() as JobResult;
      // every stage echoed stage 1's answer: the last successful stage's context crossed each run
      expect(full.results.map((x) => x.data)).toEqual(Array(10).fill({ v: 'A' }));
      expect(full.results.map((x) => x.evidence.map((e) => e.id))).toEqual(tasks.map((_, i) => [`e${i}`]));
    } finally {
      await app.close();
    }
  }, 600_000);
});
