/**
 * The cost of token streams on a fan-out's throughput: the same fan-out of N LLM subtasks
 * against the fake provider (in this process, OpenAI-compatible SSE, each turn a few hundred
 * milliseconds of text in chunks), once on an agent whose turns go to the job's stream as
 * `subtask.delta` events (`streamEvents: true`) and once on the same agent with them off,
 * alternating, best of BENCH_REPEAT; the ratio of the two rates is the figure. Delta events per
 * subtask are counted from the record.
 *
 *   npm run bench -- llm-stream        (BENCH_LLM_N, default 100; BENCH_LLM_CHUNKS per turn, 30; BENCH_LLM_CHUNK_MS, 10)
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRegistry } from '../activities';
import { startFakeLlm } from '../scripts/fake-llm';
import { bundleWorkflows, createWorkers } from '../workers/worker';
import { delegationJob } from '../workflows/delegation-job';
import { patientResult } from './delegate-runs';
import { benchRecord, quietRuntime, report, round, startTemporal } from './lib';

const N = Number(process.env.BENCH_LLM_N ?? 100);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 2);
const CHUNKS = Number(process.env.BENCH_LLM_CHUNKS ?? 30);
const CHUNK_MS = Number(process.env.BENCH_LLM_CHUNK_MS ?? 10);
const MODEL = 'bench-stream';
const queue = 'bench-llm-stream';

quietRuntime();
const t = await startTemporal('llm-stream');
const fake = await startFakeLlm();
const text = JSON.stringify({ answer: 'y'.repeat(CHUNKS * 10 - 14) });
await fetch(`${fake.url}/v1/_script`, {
  method: 'POST',
  body: JSON.stringify({ model: MODEL, text, chunkChars: 10, chunkDelayMs: CHUNK_MS }),
});
const agent = (id: string, streamEvents: boolean) => ({
  kind: 'llm',
  id,
  baseUrl: `${fake.url}/v1`,
  model: MODEL,
  pricing: { inputPerMTok: 1, outputPerMTok: 2 },
  timeoutSeconds: 60,
  streamEvents,
});
const agentsFile = join(mkdtempSync(join(tmpdir(), 'delegate-bench-llm-')), 'agents.json');
writeFileSync(agentsFile, JSON.stringify({ agents: [agent('streamed', true), agent('quiet', false)] }));
const registry = loadRegistry(agentsFile);
const record = await benchRecord();
const workers = await createWorkers({
  connection: t.workerConnection,
  namespace: 'default',
  taskQueue: queue,
  workflowBundle: await bundleWorkflows(),
  registry,
  record,
});
const running = Promise.all(workers.map((w) => w.run()));

let seq = 0;
/** One fan-out of n subtasks on `agentId`: its time and the delta events it wrote. */
async function run(agentId: 'streamed' | 'quiet', n: number) {
  const jobId = `llm-${agentId}-${n}-${++seq}`;
  const started = performance.now();
  const result = await patientResult(
    await t.client.workflow.start(delegationJob, {
      taskQueue: queue,
      workflowId: `job/bench/${jobId}`,
      args: [
        {
          spec: {
            jobId,
            pattern: 'fanout',
            maxParallel: Math.min(n, 1000),
            tasks: Array.from({ length: n }, (_, i) => ({ id: `t${i}`, question: `q${i}`, agent: agentId })),
          },
          tenant: 'bench',
          agents: { [agentId]: registry.get(agentId)!.manifest },
        },
      ],
    }),
  );
  const ms = performance.now() - started;
  if (result.status !== 'success' || result.metrics.subtasks !== n) throw new Error(`${agentId} ${n}: ${result.status}`);
  // the record serves events a page at a time
  const events: { type: string; seq: number }[] = [];
  for (
    let page = await record.events.after('bench', jobId, 0);
    page.length;
    page = await record.events.after('bench', jobId, events.at(-1)!.seq)
  )
    events.push(...page);
  return { ms, deltas: events.filter((e) => e.type === 'subtask.delta').length, events: events.length };
}

try {
  await run('streamed', 10); // warm-up: workflow caches, connections
  await run('quiet', 10);
  const on: Awaited<ReturnType<typeof run>>[] = [];
  const off: Awaited<ReturnType<typeof run>>[] = [];
  for (let r = 0; r < REPEAT; r++) {
    // alternate, so neither side always runs on a warmer server
    if (r % 2 === 0) {
      on.push(await run('streamed', N));
      off.push(await run('quiet', N));
    } else {
      off.push(await run('quiet', N));
      on.push(await run('streamed', N));
    }
  }
  const best = (xs: { ms: number }[]) => Math.min(...xs.map((x) => x.ms));
  const onRate = (N / best(on)) * 1000;
  const offRate = (N / best(off)) * 1000;
  report(
    'llm-stream',
    `Token streams on a fan-out of ${N} LLM subtasks (${CHUNKS} chunks of 10 characters per turn, ${CHUNK_MS} ms apart), best of ${REPEAT}`,
    [
      'N',
      'streams on (ms)',
      'subtasks/s',
      'deltas per subtask',
      'events per subtask',
      'streams off (ms)',
      'subtasks/s',
      'events per subtask',
      'on / off',
    ],
    [
      [
        N,
        round(best(on), 0),
        round(onRate),
        round(on[0].deltas / N, 2),
        round(on[0].events / N, 2),
        round(best(off), 0),
        round(offRate),
        round(off[0].events / N, 2),
        `${round(onRate / offRate, 2)}x`,
      ],
    ],
    { n: N, chunks: CHUNKS, chunkMs: CHUNK_MS, onMs: on.map((x) => x.ms), offMs: off.map((x) => x.ms), on, off },
  );
} finally {
  for (const w of workers) w.shutdown();
  await running;
  fake.server.close();
  await t.close();
}
