import { afterEach, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider, type FakeProviderOptions, type FakeProviderStats } from '../../scripts/fake-provider';

let fake: FakeProvider | undefined;
afterEach(async () => {
  await fake?.stop();
  fake = undefined;
});

async function start(options: FakeProviderOptions): Promise<FakeProvider> {
  fake = await startFakeProvider(options);
  return fake;
}

const post = (path: string, body: object) =>
  fetch(`${fake!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** An OpenAI chat request asking "hello" (11 characters: 3 input tokens), its body read. */
async function chat(extra: object = {}): Promise<{ status: number; headers: Headers; body: string }> {
  const r = await post('/v1/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'hello\nworld' }], ...extra });
  return { status: r.status, headers: r.headers, body: await r.text() };
}

const anthropic = () => post('/v1/messages', { model: 'claude', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
const gemini = () => post('/v1/models/gem:streamGenerateContent?alt=sse', { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
const stats = async () => (await (await fetch(`${fake!.url}/v1/_stats`)).json()) as FakeProviderStats;

describe('fake provider', () => {
  it('answers each protocol with the first line, usage counting characters / 4 and chunks', async () => {
    await start({ chunks: 3 });
    const json = JSON.parse((await chat()).body) as { choices: { message: { content: string } }[]; usage: object };
    expect(JSON.parse(json.choices[0].message.content)).toEqual({ answer: 'ok: hello' });
    expect(json.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 3 });
    const sse = (await chat({ stream: true, stream_options: { include_usage: true } })).body;
    const frames = sse
      .split('\n\n')
      .filter((f) => f.startsWith('data: {'))
      .map((f) => JSON.parse(f.slice(6)) as { choices: { delta: { content?: string } }[]; usage?: object });
    expect(JSON.parse(frames.map((f) => f.choices[0]?.delta.content ?? '').join(''))).toEqual({ answer: 'ok: hello' });
    expect(frames.at(-1)!.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 3 });
    expect(await (await anthropic()).text()).toContain('message_stop');
    expect(await (await gemini()).text()).toContain('"finishReason":"STOP"');
    expect(fake!.stats()).toMatchObject({ served: 4, refused: 0, faults: 0, tokensServed: { input: 3 + 3 + 1 + 1, output: 12 } });
  });

  it('refuses past the burst with a 429 and a retry-after after which the request goes', async () => {
    await start({ requestsPerMinute: 60, burst: 2 });
    expect((await chat()).status).toBe(200);
    expect((await chat()).status).toBe(200);
    const refused = await chat();
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { type: 'requests', code: 'rate_limit_exceeded' } });
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(Number(refused.headers.get('retry-after-ms'))).toBeGreaterThan(900);
    expect(Number(refused.headers.get('retry-after-ms'))).toBeLessThanOrEqual(1000);
    expect(refused.headers.get('x-ratelimit-limit-requests')).toBe('60');
    expect(refused.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(refused.headers.get('x-ratelimit-reset-requests')).toMatch(/^\d+(ms|(\.\d+)?s)$/);
    await new Promise((r) => setTimeout(r, Number(refused.headers.get('retry-after')) * 1000));
    expect((await chat()).status).toBe(200);
    expect((await chat()).status).toBe(429);
    expect(fake!.stats()).toMatchObject({ served: 3, refused: 2 });
  });

  it('refuses a request past `concurrent` in flight', async () => {
    await start({ concurrent: 2, latencyMs: 300 });
    const statuses = (await Promise.all([chat(), chat(), chat()])).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 429]);
    expect(fake!.stats()).toMatchObject({ served: 2, refused: 1, maxInFlight: 2 });
    expect((await chat()).status).toBe(200);
  });

  it('refuses with type "tokens" when input and max_tokens exceed the token bucket, charging the actual tokens', async () => {
    await start({ tokensPerMinute: 100 });
    const long = [{ role: 'user', content: 'x'.repeat(80) }]; // 20 input tokens
    expect((await chat({ messages: long, max_tokens: 10 })).status).toBe(200); // charges 20 + 1 chunk
    const refused = await chat({ messages: long, max_tokens: 70 });
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { type: 'tokens', code: 'rate_limit_exceeded' } });
    expect(refused.headers.get('x-ratelimit-remaining-tokens')).toBe('79');
    expect((await chat({ messages: long, max_tokens: 55 })).status).toBe(200);
  });

  it('answers faultRate 1 with 500s and 503s, charging no tokens', async () => {
    const options = { tokensPerMinute: 50, seed: 7 };
    await start({ ...options, faultRate: 1 });
    const long = { messages: [{ role: 'user', content: 'x'.repeat(80) }], max_tokens: 3 }; // needs 23 of 50
    const statuses = [];
    for (let i = 0; i < 20; i++) statuses.push((await chat(long)).status);
    expect(new Set(statuses)).toEqual(new Set([500, 503]));
    expect(fake!.stats()).toMatchObject({ served: 0, faults: 20, tokensServed: { input: 0, output: 0 } });
    expect((await post('/v1/_config', { faultRate: 2 })).status).toBe(400);
    expect((await post('/v1/_config', options)).status).toBe(200);
    // the bucket is still full: two requests of 21 tokens go, the third does not
    expect([(await chat(long)).status, (await chat(long)).status, (await chat(long)).status]).toEqual([200, 200, 429]);
  });

  it('answers Anthropic with 529 overloaded_error and rate_limit_error 429s', async () => {
    await start({ overloadedRate: 1 });
    const overloaded = await anthropic();
    expect(overloaded.status).toBe(529);
    expect(await overloaded.json()).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    fake!.configure({ requestsPerMinute: 60, burst: 1 });
    expect((await anthropic()).status).toBe(200);
    const limited = await anthropic();
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(limited.headers.get('retry-after-ms')).toBeNull();
    const reset = Date.parse(limited.headers.get('anthropic-ratelimit-requests-reset') ?? '');
    expect(reset - Date.now()).toBeGreaterThan(0);
    expect(reset - Date.now()).toBeLessThanOrEqual(1000);
    expect(fake!.stats()).toMatchObject({ served: 1, refused: 2 });
  });

  it('answers Gemini with RESOURCE_EXHAUSTED and a RetryInfo, no retry-after header', async () => {
    await start({ requestsPerMinute: 60, burst: 1, retryAfter: 'seconds' });
    expect((await gemini()).status).toBe(200);
    const limited = await gemini();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBeNull();
    expect(await limited.json()).toEqual({
      error: {
        code: 429,
        message: 'Resource has been exhausted (e.g. check quota).',
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' }],
      },
    });
  });

  it('counts served requests per second and in the busiest sliding second', async () => {
    await start({});
    for (let group = 0; group < 3; group++) {
      if (group) await new Promise((r) => setTimeout(r, 600));
      await Promise.all([chat(), chat(), chat()]);
    }
    const { perSecond, ...counts } = await stats();
    // 3 at 0 ms, 3 at ~600 ms, 3 at ~1200 ms: a sliding second holds two groups, never three
    expect(counts).toMatchObject({ served: 9, maxPerSecondWindow: 6, tokensServed: { input: 27, output: 9 } });
    expect(perSecond.reduce((a, b) => a + b, 0)).toBe(9);
    expect(perSecond.length).toBeGreaterThanOrEqual(2);
    expect(fake!.stats()).toMatchObject(counts);
  });

  it('starts over on _reset: counts zero, buckets full', async () => {
    await start({ requestsPerMinute: 60, burst: 1 });
    expect((await chat()).status).toBe(200);
    expect((await chat()).status).toBe(429);
    expect((await post('/v1/_reset', {})).status).toBe(200);
    expect(await stats()).toEqual({
      served: 0,
      refused: 0,
      faults: 0,
      tokensServed: { input: 0, output: 0 },
      maxInFlight: 0,
      perSecond: [0],
      maxPerSecondWindow: 0,
      cut: 0,
      tokensCut: 0,
    });
    expect((await chat()).status).toBe(200);
  });
});

describe('fake provider latency tail', () => {
  const ask = async (content: string) => {
    const t0 = performance.now();
    await (await post('/v1/chat/completions', { model: 'm', messages: [{ role: 'user', content }] })).text();
    return performance.now() - t0;
  };

  it("makes a matching question's first call slow and its repeat (a hedge) fast", async () => {
    await start({ latencyMs: 20, latencyTail: { factor: 15, match: 'slow' } });
    expect(await ask('slow one')).toBeGreaterThanOrEqual(290);
    expect(await ask('slow one')).toBeLessThan(250);
    expect(await ask('fast one')).toBeLessThan(250);
  });

  it('draws slow calls from the question and its count: the same calls again after a reset, none with p 0', async () => {
    await start({ latencyMs: 5, latencyTail: { factor: 40, p: 0.3 } });
    const run = async () => {
      const slow: number[] = [];
      for (let i = 0; i < 12; i++) if ((await ask(`q${i}`)) >= 190) slow.push(i);
      return slow;
    };
    const first = await run();
    expect(first.length).toBeGreaterThan(0);
    expect(first.length).toBeLessThan(12);
    fake!.reset();
    expect(await run()).toEqual(first);
  });

  it('counts the calls the client cut before their answer, and their input', async () => {
    await start({ latencyMs: 300 });
    const ac = new AbortController();
    const call = fetch(`${fake!.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hello\nworld' }] }),
      signal: ac.signal,
    }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 50));
    ac.abort();
    await call;
    await new Promise((r) => setTimeout(r, 400));
    expect(fake!.stats()).toMatchObject({ served: 0, cut: 1, tokensCut: 3 });
  });
});
