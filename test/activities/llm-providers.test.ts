/**
 * LLM agents on the AI SDK's providers, against the loopback fake speaking the real wire
 * formats (OpenAI chat-completions SSE with usage in the stream, Anthropic Messages SSE, Gemini
 * streamGenerateContent SSE with usageMetadata): a
 * plain answer, a tool call in scope, one out of scope refused, structured output checked by
 * the host, a streamed turn's deltas over SSE in order, a turn cut by the latency budget that
 * books what the fake charged, a role's cached prefix priced as cached, and Gemini's implicitly
 * cached tokens priced as cached.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { JobEvent, TaskResult } from '../../schemas';
import { finalResult, listeningApp, runJob, uniqueId } from '../helpers';
import { authHeader } from '../tenants';

const fake = () => inject('fakeLlmUrl');

/** Tells the fake what model `model` answers from now on. */
async function script(model: string, answer: { text?: string; chunkChars?: number; chunkDelayMs?: number; toolCall?: object }) {
  const res = await fetch(`${fake()}/v1/_script`, { method: 'POST', body: JSON.stringify({ model, ...answer }) });
  expect(res.status).toBe(200);
}

/** What the fake charged for `model`. */
async function charged(model: string): Promise<{ requests: number; input: number; cached: number; output: number }> {
  return (await (await fetch(`${fake()}/v1/_charged?model=${encodeURIComponent(model)}`)).json()) as Awaited<ReturnType<typeof charged>>;
}

/** Every SSE frame of a job's stream as text, and its events, to job.finished. */
async function sse(url: string): Promise<{ raw: string; events: JobEvent[] }> {
  const res = await fetch(url, { headers: authHeader('default') });
  expect(res.status).toBe(200);
  const raw = await res.text();
  const events = raw
    .split('\n\n')
    .map((f) =>
      f
        .split('\n')
        .find((l) => l.startsWith('data: '))
        ?.slice(6),
    )
    .filter((d): d is string => d !== undefined)
    .map((d) => JSON.parse(d) as JobEvent);
  return { raw, events };
}

describe.each([
  ['openai', 'openai-researcher'],
  ['anthropic', 'claude-researcher'],
  ['google', 'gemini-researcher'],
])('LLM agents on the %s provider', (_provider, agent) => {
  it('answers plainly, booking the tokens the stream reported', async () => {
    const r = await runJob({ jobId: uniqueId('prov-plain'), pattern: 'fanout', tasks: [{ id: 't', question: 'capital of Peru', agent }] });
    expect(r.results[0]).toMatchObject({ status: 'success', data: { answer: 'direct: capital of Peru' }, metrics: { steps: 1 } });
    // the fake's 12 output tokens came back in the stream's usage
    expect(r.results[0].metrics.tokens).toBeGreaterThan(12);
  });

  it('runs a tool call in scope, and refuses one out of scope without running it', async () => {
    const ok = await runJob({
      jobId: uniqueId('prov-tool'),
      pattern: 'fanout',
      tasks: [{ id: 't', question: 'capital of Chile', agent, scope: ['search'] }],
    });
    expect(ok.results[0]).toMatchObject({ status: 'success', data: { answer: 'results for capital of Chile' }, metrics: { toolCalls: 1 } });
    const rogue = await runJob({
      jobId: uniqueId('prov-rogue'),
      pattern: 'fanout',
      model: 'rogue',
      tasks: [{ id: 't', question: 'q', agent, scope: ['search'] }],
    });
    expect(rogue.results[0]).toMatchObject({ status: 'failure', failureReason: 'tool_denied', metrics: { attempts: 1, toolCalls: 0 } });
    expect(rogue.results[0].errors[0]).toContain('"shell"');
    // the refused turn was paid for
    expect(rogue.results[0].metrics.tokens).toBeGreaterThan(0);
  });

  it('checks structured output on the host: a matching answer passes, another is refused after one re-prompt', async () => {
    const schema = { type: 'object', required: ['answer'], properties: { answer: { type: 'string', pattern: '^direct' } } };
    const r = await runJob({
      jobId: uniqueId('prov-schema'),
      pattern: 'fanout',
      tasks: [
        { id: 'ok', question: 'capital of Bolivia', agent, outputSchema: schema },
        { id: 'bad', question: 'capital of Bolivia', agent, outputSchema: { ...schema, required: ['answer', 'source'] } },
      ],
    });
    const [ok, bad] = r.results as TaskResult[];
    expect(ok).toMatchObject({ status: 'success', data: { answer: 'direct: capital of Bolivia' } });
    expect(bad).toMatchObject({ status: 'failure', failureReason: 'invalid_output' });
    expect(bad.errors.join(' ')).toContain('source');
  });
});

describe('token streams and cut steps', () => {
  let api: Awaited<ReturnType<typeof listeningApp>>;
  beforeAll(async () => {
    api = await listeningApp();
  });
  afterAll(async () => {
    await api?.app.close();
  });
  const submit = (payload: object) => api.app.inject({ method: 'POST', url: '/v1/jobs', payload });

  it.each(['researcher', 'claude-researcher'])(
    "streams a turn's text to an SSE client in order, and keeps the result as it was (%s)",
    async (agent) => {
      const model = uniqueId('stream');
      const text = JSON.stringify({ answer: 'Lima is the capital of Peru, on the Pacific coast.' });
      await script(model, { text, chunkChars: 3, chunkDelayMs: 15 });
      const jobId = uniqueId('sse-delta');
      expect((await submit({ jobId, pattern: 'fanout', model, tasks: [{ id: 't', question: 'capital of Peru', agent }] })).statusCode).toBe(
        201,
      );
      const { raw, events } = await sse(`${api.url}/v1/jobs/${jobId}/events`);
      const deltas = events.filter((e) => e.type === 'subtask.delta');
      // batched (at most every 100 ms): fewer events than chunks, in order, their text the whole turn
      expect(deltas.length).toBeGreaterThan(1);
      expect(deltas.length).toBeLessThan(Math.ceil(text.length / 3));
      expect(deltas.map((e) => e.data.seq)).toEqual(deltas.map((_, i) => i + 1));
      expect(deltas.map((e) => e.data.text).join('')).toBe(text);
      const types = events.map((e) => e.type);
      expect(types.lastIndexOf('subtask.delta')).toBeLessThan(types.indexOf('subtask.step'));
      const result = (await finalResult(api.app, jobId)).json();
      expect(result.results[0]).toMatchObject({ status: 'success', data: JSON.parse(text) });
      console.log(
        `a streamed step as SSE (${agent}):\n${raw
          .split('\n\n')
          .filter((f) => f.includes('subtask.delta') || f.includes('subtask.step'))
          .slice(0, 4)
          .join('\n\n')}\n…`,
      );
    },
  );

  it('sends no deltas for an agent with streamEvents off, and the same result', async () => {
    const model = uniqueId('quiet');
    const text = JSON.stringify({ answer: 'Quito' });
    await script(model, { text, chunkChars: 2, chunkDelayMs: 15 });
    const jobId = uniqueId('sse-quiet');
    expect(
      (await submit({ jobId, pattern: 'fanout', model, tasks: [{ id: 't', question: 'q', agent: 'quiet-researcher' }] })).statusCode,
    ).toBe(201);
    const { events } = await sse(`${api.url}/v1/jobs/${jobId}/events`);
    expect(events.filter((e) => e.type === 'subtask.delta')).toEqual([]);
    expect(events.some((e) => e.type === 'subtask.step')).toBe(true);
    expect((await finalResult(api.app, jobId)).json().results[0]).toMatchObject({ status: 'success', data: { answer: 'Quito' } });
  });

  it.each(['researcher', 'claude-researcher', 'gemini-researcher'])(
    'books the partial usage of a turn the latency budget cut mid-stream, as the fake charged it (%s)',
    async (agent) => {
      const model = uniqueId('cut');
      await script(model, { text: 'x'.repeat(400), chunkChars: 1, chunkDelayMs: 50 });
      const jobId = uniqueId('cut');
      const res = await submit({
        jobId,
        pattern: 'fanout',
        model,
        tasks: [{ id: 't', question: 'a long answer, please', agent, budget: { latencySeconds: 2 } }],
      });
      expect(res.statusCode).toBe(201);
      const t = (await finalResult(api.app, jobId)).json().results[0] as TaskResult;
      expect(t.errors.join(' ')).toMatch(/latency budget of 2s ran out during step 0/);
      const c = await charged(model);
      const fakeTokens = c.input + c.output;
      const fakeCost = ((c.input - c.cached) * 1000 + c.cached * (agent === 'researcher' ? 1000 : 100) + c.output * 2000) / 1e6;
      console.log(
        `cut step (${agent}): booked ${t.metrics.tokens} tokens / $${t.metrics.costUsd.toFixed(6)}; the fake charged ${fakeTokens} tokens (${c.input} in, ${c.output} out) / $${fakeCost.toFixed(6)}; latency ${t.metrics.latencyMs} ms`,
      );
      // the step cut itself at the budget: the subtask did not wait for a throttled heartbeat to carry the cancel
      expect(t.metrics.latencyMs).toBeLessThan(3500);
      expect(c.output).toBeGreaterThan(10);
      expect(c.output).toBeLessThan(400);
      // the stream was cut before it ended, and what it had cost was booked (within a few chunks in flight)
      expect(t.metrics.tokens).toBeGreaterThan(c.input);
      expect(Math.abs(t.metrics.tokens - fakeTokens)).toBeLessThanOrEqual(Math.max(3, fakeTokens * 0.05));
      expect(Math.abs(t.metrics.costUsd - fakeCost)).toBeLessThanOrEqual(Math.max(0.006, fakeCost * 0.05));
    },
  );
});

describe('cancelled mid-stream', () => {
  it('books what a turn spent before the job was cancelled, as the fake charged it', async () => {
    const api = await listeningApp();
    try {
      const model = uniqueId('cancel');
      await script(model, { text: 'y'.repeat(400), chunkChars: 1, chunkDelayMs: 50 });
      const jobId = uniqueId('cancel-llm');
      const res = await api.app.inject({
        method: 'POST',
        url: '/v1/jobs',
        payload: { jobId, pattern: 'fanout', model, tasks: [{ id: 't', question: 'a long answer, please', agent: 'claude-researcher' }] },
      });
      expect(res.statusCode).toBe(201);
      // some of the answer has streamed
      for (let i = 0; i < 100 && (await charged(model)).output < 20; i++) await new Promise((r) => setTimeout(r, 100));
      const at = Date.now();
      expect((await api.app.inject({ method: 'POST', url: `/v1/jobs/${jobId}/cancel`, payload: {} })).statusCode).toBeLessThan(300);
      const job = (await finalResult(api.app, jobId)).json();
      const t = job.results[0] as TaskResult;
      const c = await charged(model);
      const fakeTokens = c.input + c.output;
      console.log(
        `cancelled step: booked ${t.metrics.tokens} tokens / $${t.metrics.costUsd.toFixed(6)}; the fake charged ${fakeTokens} (${c.input} in, ${c.output} out); result ${Date.now() - at} ms after the cancel`,
      );
      expect(t.failureReason).toBe('cancelled');
      // the cancel reached the step with its next heartbeat (every 2 s), and the step answered with its spend
      expect(Date.now() - at).toBeLessThan(6000);
      expect(c.output).toBeLessThan(400);
      expect(t.metrics.tokens).toBeGreaterThan(c.input);
      expect(Math.abs(t.metrics.tokens - fakeTokens)).toBeLessThanOrEqual(Math.max(3, fakeTokens * 0.05));
    } finally {
      await api.app.close();
    }
  });
});

describe('prompt caching', () => {
  it("prices Gemini's cached tokens (usageMetadata.cachedContentTokenCount) as cached", async () => {
    // "~tag": a model of the test's own that plays the scripted model (Gemini's model is a URL path: no "#")
    const model = uniqueId('scripted~gem-cache');
    const r = await runJob({
      jobId: uniqueId('gem-cache'),
      pattern: 'fanout',
      model,
      tasks: [{ id: 't', question: 'capital of Ecuador', agent: 'gemini-researcher', scope: ['search'] }],
    });
    // two turns with the same system prompt and brief: the second one's prefix is cached
    expect(r.results[0]).toMatchObject({ status: 'success', data: { answer: 'results for capital of Ecuador' }, metrics: { steps: 2 } });
    const c = await charged(model);
    expect(c.requests).toBe(2);
    expect(c.cached).toBeGreaterThan(0);
    const t = r.results[0];
    const cachedCost = ((c.input - c.cached) * 1000 + c.cached * 100 + c.output * 2000) / 1e6;
    console.log(
      `gemini job: ${c.cached} of ${c.input} input tokens cached; booked ${t.metrics.tokens} tokens / $${t.metrics.costUsd.toFixed(6)}, the fake charged ${c.input + c.output} / $${cachedCost.toFixed(6)}`,
    );
    expect(t.metrics.tokens).toBe(c.input + c.output);
    expect(t.metrics.costUsd).toBeCloseTo(cachedCost, 9);
    expect(t.metrics.costUsd).toBeLessThan((c.input * 1000 + c.output * 2000) / 1e6);
  });

  it("prices a role's cached first request as cached (Anthropic cache control)", async () => {
    const model = uniqueId('role#cache');
    const tasks = [0, 1].map((i) => ({ id: `r${i}`, question: `review change ${i}`, role: 'review-claude', taskType: 'code_review' }));
    const r = await runJob({ jobId: uniqueId('role-cache'), pattern: 'pipeline', model, tasks });
    expect(r.results.map((t) => t.status)).toEqual(['success', 'success']);
    const c = await charged(model);
    expect(c.cached).toBeGreaterThan(0);
    const booked = r.results.reduce((n, t) => n + t.metrics.costUsd, 0);
    const cachedCost = ((c.input - c.cached) * 1000 + c.cached * 100 + c.output * 2000) / 1e6;
    const uncachedCost = (c.input * 1000 + c.output * 2000) / 1e6;
    console.log(
      `role job: ${c.cached} of ${c.input} input tokens cached; booked $${booked.toFixed(6)} (all as input: $${uncachedCost.toFixed(6)})`,
    );
    expect(booked).toBeCloseTo(cachedCost, 9);
    expect(booked).toBeLessThan(uncachedCost);
    const bodies = (await (await fetch(`${fake()}/v1/_captured?model=${encodeURIComponent(model)}`)).json()) as { body: string }[];
    expect(bodies.filter((b) => b.body.includes('"cache_control"')).length).toBe(2);
  });
});

describe('input and output tokens, split', () => {
  it('reports the split the provider streamed in the step events, TaskResult.metrics and JobResult.metrics', async () => {
    const api = await listeningApp();
    try {
      // two Gemini turns with the same prefix: the second one's input is partly cached
      const model = uniqueId('scripted~split');
      const jobId = uniqueId('split');
      const payload = {
        jobId,
        pattern: 'fanout',
        model,
        tasks: [{ id: 't', question: 'capital of Uruguay', agent: 'gemini-researcher', scope: ['search'] }],
      };
      expect((await api.app.inject({ method: 'POST', url: '/v1/jobs', payload })).statusCode).toBe(201);
      const { events } = await sse(`${api.url}/v1/jobs/${jobId}/events`);
      const job = (await finalResult(api.app, jobId)).json();
      const c = await charged(model);
      expect(c.cached).toBeGreaterThan(0);
      const split = { inputTokens: c.input, outputTokens: c.output, cachedInputTokens: c.cached };
      // the total stays the budgets' tokens; the split is what it was made of
      expect(job.results[0].metrics).toMatchObject({ ...split, tokens: c.input + c.output });
      expect(job.metrics).toMatchObject({ ...split, tokens: c.input + c.output });
      const steps = events.filter((e) => e.type === 'subtask.step').map((e) => (e.data as { usage: Record<string, number> }).usage);
      expect(steps).toHaveLength(2);
      for (const k of Object.keys(split) as (keyof typeof split)[]) expect(steps[0][k] + steps[1][k]).toBe(split[k]);
      expect(steps[0].cachedInputTokens).toBe(0);
      console.log(`split of a two-turn Gemini job: ${JSON.stringify(split)}; step events ${JSON.stringify(steps)}`);
    } finally {
      await api.app.close();
    }
  });
});
