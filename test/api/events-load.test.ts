/**
 * Live events under load: 30 concurrent jobs of multi-step sim agents on the shared stack,
 * while another process (this one, as a second worker would) writes the same SQLite record.
 * Every job's stream must match its result event for event: each step the result counts has
 * its `subtask.step`, numbered 1…n, and the stream's seqs are 1, 2, 3… without a gap.
 */
import { describe, expect, inject, it } from 'vitest';
import { openRecord } from '../../record';
import type { JobEvent, JobResult } from '../../schemas';
import { finalResult, testRecord, uniqueId, useApp } from '../helpers';

const JOBS = 30;
const TASKS = 3;
const STEPS = 6;

/** The job's whole stream in the record (what SSE replays), once `job.finished` is there. */
async function streamOf(jobId: string): Promise<JobEvent[]> {
  const record = await testRecord();
  const deadline = Date.now() + 30_000;
  for (;;) {
    const events: JobEvent[] = [];
    for (
      let page = await record.events.after('default', jobId, 0);
      page.length;
      page = await record.events.after('default', jobId, events.at(-1)!.seq)
    )
      events.push(...page);
    if (events.at(-1)?.type === 'job.finished' || Date.now() > deadline) return events;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('job events under concurrent load', () => {
  const app = useApp();

  it(`writes every step event of ${JOBS} concurrent jobs (${JOBS * TASKS * STEPS} steps) while another process writes the record`, async () => {
    // a second writer of the record file in another process, as a second worker (or the API's scouts) is
    const other = await openRecord({ sqliteFile: inject('recordFile') });
    let writing = true;
    let written = 0;
    let refused = 0;
    const noise = (async () => {
      const decoy = uniqueId('events-load-decoy');
      for (let n = 0; writing; n++) {
        await other.store.events.append('default', decoy, [{ key: `n${n}`, type: 'subtask.step', data: { n } }]).then(
          () => written++,
          () => refused++,
        );
        // a commit every couple of milliseconds, not a tight loop (160,000 commits, 40 s of a core): with the
        // deferred BEGIN and the unretried event writes put back, this one still loses 89 of the 540 step events
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    try {
      const ids = Array.from({ length: JOBS }, (_, i) => uniqueId(`events-load-${i}`));
      const tasks = Array.from({ length: TASKS }, (_, t) => ({
        id: `t${t}`,
        question: `q${t}`,
        agent: 'sim',
        params: { steps: STEPS, latencyMs: 20 },
      }));
      const submitted = await Promise.all(
        ids.map((jobId) => app.inject({ method: 'POST', url: '/v1/jobs', payload: { jobId, pattern: 'fanout', tasks } })),
      );
      expect(submitted.map((r) => r.statusCode)).toEqual(ids.map(() => 201));
      const results = await Promise.all(ids.map(async (jobId) => (await finalResult(app, jobId)).json() as JobResult));
      writing = false;
      await noise;

      let lost = 0;
      const problems: string[] = [];
      for (const [i, jobId] of ids.entries()) {
        const result = results[i]!;
        expect(result.status, jobId).toBe('success');
        const events = await streamOf(jobId);
        const seqs = events.map((e) => e.seq);
        if (seqs.some((s, k) => s !== k + 1)) problems.push(`${jobId}: seqs not 1..n`);
        if (events.at(-1)?.type !== 'job.finished') problems.push(`${jobId}: no job.finished`);
        for (const task of result.results) {
          // one subtask.step per step the result counts (a retried write of one is skipped by its key)
          const told = new Set(
            events.filter((e) => e.type === 'subtask.step' && e.data.taskId === task.id).map((e) => Number(e.data.step)),
          );
          const missing = task.metrics.steps - told.size;
          lost += Math.max(0, missing);
          if (missing !== 0)
            problems.push(
              `${jobId}/${task.id}: ${task.metrics.steps} steps, ${told.size} subtask.step events (steps ${[...told].sort((a, b) => a - b).join(',')})`,
            );
          for (const type of ['subtask.started', 'subtask.finished']) {
            if (!events.some((e) => e.type === type && e.data.taskId === task.id)) problems.push(`${jobId}/${task.id}: no ${type}`);
          }
        }
      }
      console.log(
        `events-load: ${lost} of ${JOBS * TASKS * STEPS} step events lost; the other writer wrote ${written}, was refused ${refused}`,
      );
      expect(problems).toEqual([]);
      expect(written).toBeGreaterThan(0);
    } finally {
      writing = false;
      await noise.catch(() => undefined);
      await other.close();
    }
  });
});
