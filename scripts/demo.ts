import { fileURLToPath } from 'node:url';
import type { JobResult } from '../schemas';
import { localApiKey } from './api-key';

/** `npm run demo`: submits a 3-subtask fan-out to the running API, waits, prints the result. */
const api = process.env.DELEGATE_API_URL ?? `http://localhost:${process.env.PORT ?? 3000}`;
// DELEGATE_API_KEY, or the key `npm start` made for tenant "default"
const key = process.env.DELEGATE_API_KEY ?? localApiKey(fileURLToPath(new URL('..', import.meta.url)));
const auth: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
const jobId = `demo-${new Date().toISOString().replace(/[:.]/g, '-')}`;
const spec = {
  jobId,
  pattern: 'fanout',
  objective: 'Collect three facts for a briefing',
  aggregation: { strategy: 'merge' },
  budget: { costUsd: 0.5 },
  labels: { source: 'demo' },
  tasks: [
    { id: 'echo', question: 'Say back: Delegate runs on Temporal', agent: 'echo' },
    {
      id: 'research',
      question: 'What limits does Temporal put on one workflow run?',
      agent: 'sim',
      params: {
        steps: 3,
        latencyMs: 400,
        costUsd: 0.01,
        tokens: 250,
        answer: { pendingChildren: 2000, historyEvents: 51200, payloadMiB: 2 },
        evidence: [{ id: 'limits', source: 'docs', title: 'Temporal limits', snippet: '2000 pending children, 51,200 events' }],
      },
      budget: { costUsd: 0.1 },
    },
    {
      id: 'flaky',
      question: 'A step that fails twice, then succeeds',
      agent: 'sim',
      params: { failAttempts: 2, answer: 'third time lucky' },
      retry: { maxAttempts: 3, initialIntervalSeconds: 0.5 },
    },
  ],
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function call(path: string, init?: RequestInit): Promise<{ status: number; body: any }> {
  const res = await fetch(`${api}${path}`, { ...init, headers: { ...auth, ...init?.headers } }).catch((err: Error) => {
    console.error(`Cannot reach the API at ${api} (${err.message}). Is \`npm start\` running?`);
    process.exit(1);
  });
  if (res.status === 401) {
    console.error('The API refused the key (401): set DELEGATE_API_KEY, or run `npm start` so it makes .data/api-key.');
    process.exit(1);
  }
  return { status: res.status, body: await res.json() };
}

const sub = await call('/v1/jobs', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(spec) });
if (sub.status >= 300) {
  console.error(`Submission failed (${sub.status}):`, JSON.stringify(sub.body, null, 2));
  process.exit(1);
}
console.log(`Submitted ${jobId}; waiting for the result...`);
let result: JobResult;
for (;;) {
  const r = await call(`/v1/jobs/${jobId}/result?waitSeconds=20`);
  if (r.status === 200) {
    result = r.body;
    break;
  }
  if (r.status !== 202) {
    console.error(`Unexpected answer (${r.status}):`, JSON.stringify(r.body, null, 2));
    process.exit(1);
  }
  console.log(`  still running: ${JSON.stringify(r.body.progress ?? {})}`);
}
console.log(
  `\nJob ${jobId}: ${result.status} in ${result.metrics.latencyMs} ms, $${result.metrics.costUsd.toFixed(4)}, ${result.metrics.attempts} attempts`,
);
console.table(
  result.results.map((t) => ({
    task: t.id,
    agent: t.agentId,
    status: t.status,
    steps: t.metrics.steps,
    attempts: t.metrics.attempts,
    costUsd: t.metrics.costUsd,
    ms: t.metrics.latencyMs,
  })),
);
console.log('Output:', JSON.stringify(result.output, null, 2));
console.log(`\nIn the Temporal UI: ${sub.body.links.temporalUi}`);
