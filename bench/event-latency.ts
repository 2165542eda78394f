/**
 * How long a subtask's finish takes to reach an SSE client: a fan-out of 100 `sim` subtasks
 * whose finishes are spread over ~5 s, one client on `GET /v1/jobs/:id/events` of a
 * listening API; per subtask, the time its `subtask.finished` event arrived minus the close
 * time Temporal gives its child workflow.
 *
 *   npm run bench -- event-latency        (BENCH_EVENT_SUBTASKS, default 100)
 */
import type { JobEvent } from '../schemas';
import { percentile as pct, report, round } from './lib';
import { startApiStack } from './api-stack';

const N = Number(process.env.BENCH_EVENT_SUBTASKS ?? 100);

const stack = await startApiStack('event-latency', 'bench-events');
const { t, base, app } = stack;
const arrived = new Map<string, number>();
const counts = new Map<string, number>();
try {
  const jobId = `latency-${Date.now()}`;
  const tasks = Array.from({ length: N }, (_, i) => ({
    id: `t${i}`,
    question: 'q',
    agent: 'sim',
    params: { latencyMs: Math.round((i * 5000) / N) },
  }));
  const submitted = await app.inject({ method: 'POST', url: '/v1/jobs', payload: { jobId, pattern: 'fanout', tasks } });
  if (submitted.statusCode !== 201) throw new Error(submitted.body);
  const res = await fetch(`${base}/v1/jobs/${jobId}/events`);
  if (res.status !== 200) throw new Error(`events: ${res.status} ${await res.text()}`);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  for (let done = false; !done;) {
    const chunk = await reader.read();
    if (chunk.done) break;
    const now = Date.now();
    buf += decoder.decode(chunk.value, { stream: true });
    let at: number;
    while ((at = buf.indexOf('\n\n')) >= 0) {
      const data = buf
        .slice(0, at)
        .split('\n')
        .find((l) => l.startsWith('data: '));
      buf = buf.slice(at + 2);
      if (!data) continue;
      const e = JSON.parse(data.slice(6)) as JobEvent;
      counts.set(e.type, (counts.get(e.type) ?? 0) + 1);
      if (e.type === 'subtask.finished') arrived.set(String(e.data.workflowId), now);
      if (e.type === 'job.finished') done = true;
    }
  }
  console.log('events received:', Object.fromEntries(counts));
  const latencies: number[] = [];
  for (const [workflowId, at] of arrived) {
    const d = await t.client.workflow.getHandle(workflowId).describe();
    latencies.push(at - d.closeTime!.getTime());
  }
  report(
    'event-latency',
    `A subtask's finish to an SSE client: ${latencies.length} subtasks (ms)`,
    ['subtasks', 'p50', 'p90', 'p99', 'max'],
    [[latencies.length, round(pct(latencies, 50)), round(pct(latencies, 90)), round(pct(latencies, 99)), round(Math.max(...latencies))]],
    { latencies },
  );
} finally {
  await stack.stop();
}
