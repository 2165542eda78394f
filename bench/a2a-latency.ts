/**
 * How long a subtask's finish takes to reach an A2A streaming client: a fan-out of 100 `sim`
 * subtasks whose finishes are spread over ~5 s, sent as one A2A message by the SDK's own client
 * (`SendStreamingMessage` on `/a2a` of a listening API); per subtask, the time its
 * `subtask.finished` status update arrived minus the close time Temporal gives its child workflow,
 * and minus the event's own time (the job's workflow task that saw the close: the A2A path's share).
 *
 *   npm run bench -- a2a-latency        (BENCH_A2A_SUBTASKS, default 100)
 */
import { Role } from '@a2a-js/sdk';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import type { JobEvent } from '../schemas';
import { percentile as pct, report, round } from './lib';
import { startApiStack } from './api-stack';

const N = Number(process.env.BENCH_A2A_SUBTASKS ?? 100);

const stack = await startApiStack('a2a-latency', 'bench-a2a');
const { t, base } = stack;
const arrived = new Map<string, number>();
try {
  const client = await new ClientFactory({
    transports: [new JsonRpcTransportFactory()],
    cardResolver: new DefaultAgentCardResolver(),
  }).createFromUrl(base);
  const tasks = Array.from({ length: N }, (_, i) => ({
    id: `t${i}`,
    question: 'q',
    agent: 'sim',
    params: { latencyMs: Math.round((i * 5000) / N) },
  }));
  const message = {
    messageId: `a2a-latency-${Date.now()}`,
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [
      {
        content: { $case: 'data' as const, value: { pattern: 'fanout', tasks } },
        metadata: undefined,
        filename: '',
        mediaType: 'application/json',
      },
    ],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  let updates = 0;
  // from the event's own time (the job's workflow task that saw the child close) to the client: the A2A path's share
  const lag: number[] = [];
  for await (const ev of client.sendMessageStream({ tenant: '', message, configuration: undefined, metadata: undefined })) {
    const now = Date.now();
    if (ev.payload?.$case !== 'statusUpdate') continue;
    updates++;
    const part = ev.payload.value.status?.message?.parts.find((p) => p.content?.$case === 'data');
    const e = part?.content?.value as JobEvent | undefined;
    if (e?.type !== 'subtask.finished') continue;
    arrived.set(String(e.data.workflowId), now);
    lag.push(now - Date.parse(e.at));
  }
  console.log(`status updates received: ${updates}`);
  const latencies: number[] = [];
  for (const [workflowId, at] of arrived) {
    const d = await t.client.workflow.getHandle(workflowId).describe();
    latencies.push(at - d.closeTime!.getTime());
  }
  report(
    'a2a-latency',
    `A subtask's finish to an A2A streaming client: ${latencies.length} subtasks (ms)`,
    ['from', 'subtasks', 'p50', 'p90', 'p99', 'max'],
    [
      [
        'child closed',
        latencies.length,
        round(pct(latencies, 50)),
        round(pct(latencies, 90)),
        round(pct(latencies, 99)),
        round(Math.max(...latencies)),
      ],
      ['event emitted', lag.length, round(pct(lag, 50)), round(pct(lag, 90)), round(pct(lag, 99)), round(Math.max(...lag))],
    ],
    { latencies, lag },
  );
} finally {
  await stack.stop();
}
