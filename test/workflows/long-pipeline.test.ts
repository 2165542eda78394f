import { describe, expect, it } from 'vitest';
import type { JobResult } from '../../schemas';
import { HISTORY_BYTES_PER_RUN, HISTORY_EVENTS_PER_RUN } from '../../core/engine-limits';
import { finalResult, runsOf, startJob, testApp, uniqueId } from '../helpers';

const evidence = (id: string) => ({ id, source: 'web', snippet: `found ${id}` });

describe('long pipelines continue as new', () => {
  it('10 stages, 3 per run: context, budget, evidence and results carry over; the API stitches every full result back', async () => {
    const jobId = uniqueId('pcan');
    const tasks = Array.from({ length: 10 }, (_, i) => ({
      id: `s${i}`,
      question: `stage ${i}`,
      agent: 'sim',
      params: i === 0 ? { answer: { v: 'A' }, costUsd: 0.01, evidence: [evidence('e0')] } : { echoPrevious: true, costUsd: 0.01, evidence: [evidence(`e${i}`)] },
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
      const res = await finalResult(app, jobId);
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
      console.log(`600-stage pipeline: ${seconds.toFixed(0)}s, ${runs.length} runs, largest run ${Math.max(...runs.map((x) => x.historySize ?? 0))} bytes / ${Math.max(...runs.map((x) => x.historyLength))} events; all runs together ${total} bytes / ${events} events`);
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
