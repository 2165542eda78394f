/** A step's live side without a server: deltas batched and bounded, heartbeats carrying the spend, and the pricing of cached tokens. */
import type { Context } from '@temporalio/activity';
import { describe, expect, it } from 'vitest';
import { costOf, toModelMessages } from '../../activities/agents/llm-provider';
import { createStepStream, DELTA_EVERY_MS, MAX_DELTA_CHARS_PER_STEP } from '../../activities/step-stream';
import type { NewJobEvent } from '../../schemas';

/** A stand-in for the activity context: the heartbeats it got, an earlier attempt's details. */
function fakeCtx(heartbeatDetails?: unknown) {
  const beats: unknown[] = [];
  const ctx = { info: { heartbeatDetails }, heartbeat: (d: unknown) => void beats.push(d) } as unknown as Context;
  return { ctx, beats };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('step stream', () => {
  it('batches text into ordered delta events, at most one per 100 ms, flushed before the step ends', async () => {
    const written: NewJobEvent[] = [];
    const { ctx } = fakeCtx();
    const s = createStepStream({ ctx, append: async (e) => void written.push(e), fields: { taskId: 't', step: 0 }, key: 'k#1' });
    const t0 = Date.now();
    for (let i = 0; i < 30; i++) {
      s.onText(`${i},`);
      await sleep(10);
    }
    const elapsed = Date.now() - t0;
    await s.flush();
    expect(written.map((e) => e.type)).toEqual(written.map(() => 'subtask.delta'));
    expect(written.length).toBeGreaterThanOrEqual(2);
    expect(written.length).toBeLessThanOrEqual(Math.ceil(elapsed / DELTA_EVERY_MS) + 1);
    expect(written.map((e) => e.data.seq)).toEqual(written.map((_, i) => i + 1));
    expect(written.map((e) => e.data.text).join('')).toBe(Array.from({ length: 30 }, (_, i) => `${i},`).join(''));
    expect(new Set(written.map((e) => e.key)).size).toBe(written.length);
    expect(written[0].data).toMatchObject({ taskId: 't', step: 0 });
  });

  it('stops at the bound with one last event that says so', async () => {
    const written: NewJobEvent[] = [];
    const s = createStepStream({ ctx: fakeCtx().ctx, append: async (e) => void written.push(e), fields: {}, key: 'k#1' });
    const chunk = 'x'.repeat(1000);
    for (let i = 0; i < 40; i++) s.onText(chunk);
    await s.flush();
    s.onText('after');
    await s.flush();
    expect(written.map((e) => String(e.data.text)).join('')).toHaveLength(MAX_DELTA_CHARS_PER_STEP);
    expect(written.at(-1)!.data.truncated).toBe(true);
    expect(written.filter((e) => e.data.truncated)).toHaveLength(1);
  });

  it("heartbeats the spend so far, an earlier attempt's included", () => {
    const { ctx, beats } = fakeCtx({ usage: { costUsd: 0.5, tokens: 100, toolCalls: 1 } });
    const s = createStepStream({ ctx, fields: {}, key: 'k#2' });
    expect(s.details()).toEqual({ usage: { costUsd: 0.5, tokens: 100, toolCalls: 1 } });
    s.onUsage({ costUsd: 0.25, tokens: 30, toolCalls: 0 });
    expect(beats.at(-1)).toEqual({ usage: { costUsd: 0.75, tokens: 130, toolCalls: 1 } });
    expect(s.carried).toEqual({ costUsd: 0.5, tokens: 100, toolCalls: 1 });
  });

  it("reports an earlier attempt that only called tools: a failure before this attempt's first usage still books them", () => {
    const s = createStepStream({ ctx: fakeCtx({ usage: { costUsd: 0, tokens: 0, toolCalls: 3 } }).ctx, fields: {}, key: 'k#2' });
    expect(s.details()).toEqual({ usage: { costUsd: 0, tokens: 0, toolCalls: 3 } });
  });

  it('sends nothing while nothing was spent (a first attempt)', () => {
    expect(createStepStream({ ctx: fakeCtx().ctx, fields: {}, key: 'k#1' }).details()).toBeUndefined();
  });

  it("settles the answer's spend with one heartbeat, earlier attempts' added; none for a step that spent nothing", () => {
    const first = fakeCtx();
    expect(createStepStream({ ctx: first.ctx, fields: {}, key: 'k#1' }).settle({})).toEqual({ costUsd: 0, tokens: 0, toolCalls: 0 });
    expect(first.beats).toEqual([]);
    const retried = fakeCtx({ usage: { costUsd: 0.5, tokens: 100, toolCalls: 0 } });
    const usage = createStepStream({ ctx: retried.ctx, fields: {}, key: 'k#2' }).settle({ tokens: 20 });
    expect(usage).toEqual({ costUsd: 0.5, tokens: 120, toolCalls: 0 });
    expect(retried.beats).toEqual([{ usage }]);
  });
});

describe('LLM turn pricing and caching', () => {
  it('prices cached input at its own price, or as input when the agent has none', () => {
    const t = { input: 1000, cached: 800, output: 100 };
    expect(costOf({ inputPerMTok: 3, outputPerMTok: 15, cachedInputPerMTok: 0.3 }, t)).toBeCloseTo(
      (200 * 3 + 800 * 0.3 + 100 * 15) / 1e6,
      12,
    );
    expect(costOf({ inputPerMTok: 3, outputPerMTok: 15 }, t)).toBeCloseTo((1000 * 3 + 100 * 15) / 1e6, 12);
  });

  it('marks only the message that ends the cache-stable prefix with cache control, and names tool results after their calls', () => {
    const msgs = toModelMessages(
      [
        { role: 'system', content: 's' },
        { role: 'user', content: 'u' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search', arguments: '{"q":1}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'r' },
      ],
      1,
    );
    expect(msgs.map((m) => 'providerOptions' in m)).toEqual([false, true, false, false]);
    expect(msgs[1]).toMatchObject({ providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } });
    expect(msgs[2]).toMatchObject({ content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: { q: 1 } }] });
    expect(msgs[3]).toMatchObject({
      content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'search', output: { type: 'text', value: 'r' } }],
    });
  });

  it("keeps the cached prefix for the agent's promptCacheTtl when it chose one, the provider's default otherwise", () => {
    const msgs = [
      { role: 'system' as const, content: 's' },
      { role: 'user' as const, content: 'u' },
    ];
    expect(toModelMessages(msgs, 1, '1h')[1]).toMatchObject({
      providerOptions: { anthropic: { cacheControl: { type: 'ephemeral', ttl: '1h' } } },
    });
    expect(toModelMessages(msgs, 1)[1]).toEqual({
      role: 'user',
      content: 'u',
      providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
    });
  });
});
