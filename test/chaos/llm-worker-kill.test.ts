/**
 * A worker SIGKILLed while an LLM agent's turn streams: the step's spend so far travels in its
 * heartbeats, so the tokens the provider had sent are booked although the worker never
 * answered. The fake provider (in this process) streams a long answer with the usage the host
 * counts as it reads; the test reads the last heartbeat the server holds after the kill, a new
 * worker retries the step (a short answer this time), and the subtask books exactly that
 * heartbeat's usage plus the retry's, the heartbeat being within one beat of what the fake sent.
 */
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../scripts/fake-llm';
import type { Usage } from '../../schemas';
import { recordScenario } from './audit';
import { ChaosStack } from './harness';

let stack: ChaosStack;
let fake: FakeLlm;
const MODEL = 'long-turn';
/** One output token per chunk, one chunk every CHUNK_MS: 2,000 of them outlast the kill by far. */
const CHUNK_MS = 20;
/** The host heartbeats every 2 s at most (HEARTBEAT_EVERY_MS, the worker's maxHeartbeatThrottleInterval). */
const HEARTBEAT_MS = 2000;
const PRICING = { inputPerMTok: 1000, outputPerMTok: 2000 };

const script = (answer: object) =>
  fetch(`${fake.url}/v1/_script`, { method: 'POST', body: JSON.stringify({ model: MODEL, ...answer }) }).then((r) =>
    expect(r.status).toBe(200),
  );
const charged = () => fake.charged.get(MODEL) ?? { requests: 0, input: 0, cached: 0, output: 0 };

beforeAll(async () => {
  fake = await startFakeLlm();
  stack = await ChaosStack.start({ name: 'llm-worker-kill', workers: 0, api: false });
  const agentsFile = join(stack.dir, 'agents.json');
  writeFileSync(
    agentsFile,
    JSON.stringify({
      agents: [
        {
          kind: 'llm',
          id: 'streamer',
          baseUrl: `${fake.url}/v1`,
          model: MODEL,
          pricing: PRICING,
          maxTokensPerStep: 4000,
          timeoutSeconds: 120,
          retry: { maxAttempts: 2, initialIntervalSeconds: 0.2, backoffCoefficient: 1, maximumIntervalSeconds: 0.2 },
        },
      ],
    }),
  );
  // the worker and the API read the same agents file
  process.env.DELEGATE_AGENTS_FILE = agentsFile;
  await stack.startApi();
  await stack.startWorker(0);
});
afterAll(async () => {
  await stack?.stop();
  fake?.server.close();
});

/** The usage in the last heartbeat the server holds for the subtask's running step, if any. */
async function lastHeartbeat(workflowId: string): Promise<Usage | undefined> {
  const d = await (await stack.client()).workflow.getHandle(workflowId).describe();
  const payload = d.raw.pendingActivities?.[0]?.heartbeatDetails?.payloads?.[0];
  return payload ? defaultPayloadConverter.fromPayload<{ usage?: Usage }>(payload as Payload).usage : undefined;
}

it('books the spend of a turn whose worker was SIGKILLed mid-stream: the last heartbeat, within one beat of what the provider sent', async () => {
  const started = Date.now();
  await script({ text: 'x'.repeat(2000), chunkChars: 1, chunkDelayMs: CHUNK_MS });
  const jobId = 'llm-worker-kill-1';
  const workflowId = `job/default/${jobId}/t`;
  const submitted = await stack.submit({
    jobId,
    pattern: 'fanout',
    tasks: [{ id: 't', question: 'a long answer, please', agent: 'streamer' }],
  });
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);

  // the turn streams, and the server holds a heartbeat with output in it
  const deadline = Date.now() + 60_000;
  let seen: Usage | undefined;
  while (Date.now() < deadline) {
    seen = await lastHeartbeat(workflowId).catch(() => undefined);
    if (seen && charged().output > 150 && seen.tokens > 100) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(seen?.tokens ?? 0).toBeGreaterThan(100);
  await stack.killWorker(0, 'SIGKILL');
  // what the provider sent before the socket closed: the kill ends the stream
  await new Promise<void>((resolve) => {
    let last = -1;
    const check = () => {
      const now = charged().output;
      if (now === last) return resolve();
      last = now;
      setTimeout(check, 4 * CHUNK_MS);
    };
    check();
  });
  const sent = { ...charged() };
  expect(sent.requests).toBe(1);
  expect(sent.output).toBeLessThan(2000);
  // the last heartbeat the server holds: what the lost attempt had spent by its last beat
  const beat = await lastHeartbeat(workflowId);
  expect(beat).toBeDefined();

  // the retry on a new worker answers briefly
  await script({ text: JSON.stringify({ answer: 'short, this time' }) });
  await stack.startWorker(0);
  const result = await stack.waitResult(jobId, 120_000);
  const t = result.results[0];
  const after = charged();
  const retry = { input: after.input - sent.input, output: after.output - sent.output };
  const retryTokens = retry.input + retry.output;
  const retryCost = (retry.input * PRICING.inputPerMTok + retry.output * PRICING.outputPerMTok) / 1e6;
  const sentTokens = sent.input + sent.output;
  console.log(
    `worker killed mid-stream: the provider had sent ${sentTokens} tokens (${sent.input} in, ${sent.output} out); the last heartbeat said ${beat!.tokens} tokens / $${beat!.costUsd.toFixed(6)}; ` +
      `the retry spent ${retryTokens}; booked ${t.metrics.tokens} tokens / $${t.metrics.costUsd.toFixed(6)} in ${t.metrics.attempts} attempts`,
  );
  expect(t).toMatchObject({ status: 'success', data: { answer: 'short, this time' }, metrics: { steps: 1, attempts: 2 } });
  expect(after.requests).toBe(2);
  // booked: the lost attempt's last heartbeat, plus the retry's own usage
  expect(t.metrics.tokens).toBe(beat!.tokens + retryTokens);
  expect(t.metrics.costUsd).toBeCloseTo(beat!.costUsd + retryCost, 9);
  // the heartbeat is the whole input and the output up to one beat before the kill, never more than was sent
  expect(beat!.tokens).toBeGreaterThan(sent.input);
  expect(beat!.tokens).toBeLessThanOrEqual(sentTokens);
  // (one beat's chunks, and a second's slack for a loaded machine's event loop)
  expect(sentTokens - beat!.tokens).toBeLessThanOrEqual(Math.ceil((HEARTBEAT_MS + 1000) / CHUNK_MS));

  recordScenario({
    scenario: 'worker SIGKILL mid LLM stream',
    jobs: 1,
    subtasks: 1,
    lost: result.results.length === 1 ? 0 : 1,
    duplicatedSteps: 0,
    seconds: (Date.now() - started) / 1000,
    notes: `sent ${sentTokens} tokens before the kill; booked ${beat!.tokens} of them from the last heartbeat`,
  });
});
