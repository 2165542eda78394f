/**
 * A streamed model turn's text in MCP progress: the SDK's client calls delegate_fanout with a
 * progressToken; the LLM agent's turn (the loopback fake streaming the provider's wire format)
 * shows in its progress notifications as it streams, batched (fewer notices than chunks), in
 * order, before the subtask's own finished notice, with a progress that only grows.
 */
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { expect, inject, it } from 'vitest';
import { uniqueId, useListeningApp } from '../helpers';
import { connectMcp } from './connect';

const listening = useListeningApp({}, null);

it("shows a streamed LLM step's text in progress notifications, batched and in order", async () => {
  const model = uniqueId('mcp-stream');
  const text = JSON.stringify({ answer: 'Montevideo is the capital of Uruguay, on the Río de la Plata.' });
  const scripted = await fetch(`${inject('fakeLlmUrl')}/v1/_script`, {
    method: 'POST',
    body: JSON.stringify({ model, text, chunkChars: 2, chunkDelayMs: 15 }),
  });
  expect(scripted.status).toBe(200);

  const client = await connectMcp(listening.url, 'http');
  const progress: Progress[] = [];
  const r = await client.callTool(
    {
      name: 'delegate_fanout',
      arguments: {
        jobId: uniqueId('mcp-delta'),
        model,
        tasks: [{ id: 't', question: 'capital of Uruguay', agent: 'researcher' }],
        waitSeconds: 60,
      },
    },
    undefined,
    { onprogress: (p) => progress.push(p) },
  );
  expect(r.isError ?? false).toBe(false);

  const deltas = progress.filter((p) => p.message?.startsWith('t: '));
  expect(deltas.map((p) => p.message!.slice(3)).join('')).toBe(text);
  expect(deltas.length).toBeGreaterThan(1);
  expect(deltas.length).toBeLessThan(Math.ceil(text.length / 2));
  const values = progress.map((p) => p.progress);
  expect(values).toEqual([...values].sort((a, b) => a - b));
  expect(new Set(values).size).toBe(values.length);
  // the last notice says the job is done, after all of its text
  expect(progress.at(-1)).toMatchObject({ progress: 1, total: 1 });
  expect(progress.indexOf(deltas.at(-1)!)).toBeLessThan(progress.length - 1);
});
