/**
 * Soak: a 600-stage pipeline with 60 KB answers (about 36 MB handed from stage to stage, more
 * than one run's history could hold) continues as new and completes; the API returns all 600
 * results. Minutes on a 2-core machine: `npm run test:soak`, not `npm test` (the 10-stage
 * continue-as-new case in long-pipeline.test.ts covers the wiring there).
 */
import { describe, expect, it } from 'vitest';
import type { JobResult } from '../../schemas';
import { HISTORY_BYTES_PER_RUN, HISTORY_EVENTS_PER_RUN } from '../../core/engine-limits';
import { finalResult, runsOf, testApp, uniqueId } from '../helpers';

const evidence = (id: string) => ({ id, source: 'web', snippet: `found ${id}` });

describe('long pipelines continue as new', () => {
  it('600 stages with 60 KB answers complete; every run stays far below the history limits; the API returns all 600 results', async () => {
    const jobId = uniqueId('p600');
    const stages = 600;
    const big = 'x'.repeat(60_000);
    // stage 1 answers 60 KB; every later stage hands it on (echoPrevious): each start carries it in, each result out
    const tasks = Array.from({ length: stages }, (_, i) => ({
      id: `s${i}`,
      question: `stage ${i}`,
      agent: 'sim',
      params: { ...(i === 0 ? { answer: big } : { echoPrevious: true }), evidence: [evidence(`e${i}`)], costUsd: 0.001 },
    }));
    const app = await testApp();
    try {
      const t0 = Date.now();
      const post = await app.inject({ method: 'POST', url: '/v1/jobs', payload: { jobId, pattern: 'pipeline', tasks } });
      expect(post.statusCode).toBe(201);
      const res = await finalResult(app, jobId, 1_750_000);
      const seconds = (Date.now() - t0) / 1000;
      expect(res.statusCode).toBe(200);
      const full = res.json() as JobResult;
      expect(full.status).toBe('success');
      expect(full.results).toHaveLength(stages);
      expect(full.results.every((x, i) => x.status === 'success' && x.data === big && x.evidence[0]?.id === `e${i}`)).toBe(true);
      expect(full.output).toBe(big);
      expect(full.metrics.costUsd).toBeCloseTo(stages * 0.001, 9);
      const runs = await runsOf(`job/default/${jobId}`);
      const total = runs.reduce((s, x) => s + (x.historySize ?? 0), 0);
      const events = runs.reduce((s, x) => s + x.historyLength, 0);
      console.log(
        `600-stage pipeline: ${seconds.toFixed(0)}s, ${runs.length} runs, largest run ${Math.max(...runs.map((x) => x.historySize ?? 0))} bytes / ${Math.max(...runs.map((x) => x.historyLength))} events; all runs together ${total} bytes / ${events} events`,
      );
      // the whole pipeline in one run would have passed Temporal's 50 MiB; each run stays near the soft mark
      expect(total).toBeGreaterThan(50 * 1024 * 1024);
      expect(runs.length).toBeGreaterThan(1);
      for (const run of runs) {
        expect(run.historySize).toBeLessThan(HISTORY_BYTES_PER_RUN + 4 * 1024 * 1024);
        expect(run.historyLength).toBeLessThan(HISTORY_EVENTS_PER_RUN + 100);
      }
    } finally {
      await app.close();
    }
  }, 1_800_000);
});
