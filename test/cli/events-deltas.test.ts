/**
 * `delegate events` shows a streamed model turn as it comes: each `subtask.delta` is a line of
 * its own with the text quoted (one JSON object per event with --json), in order, before the
 * step's own line; the quoted pieces are the turn's whole text.
 */
import { expect, inject, it } from 'vitest';
import { uniqueId, useListeningApp } from '../helpers';
import { authHeader } from '../tenants';
import { cliRunner } from './run-cli';

const listening = useListeningApp({}, null);

it("delegate events prints a streamed LLM step's text deltas, in order, before its step", async () => {
  const model = uniqueId('cli-stream');
  const text = JSON.stringify({ answer: 'Asunción is the capital of Paraguay.' });
  const scripted = await fetch(`${inject('fakeLlmUrl')}/v1/_script`, {
    method: 'POST',
    body: JSON.stringify({ model, text, chunkChars: 2, chunkDelayMs: 15 }),
  });
  expect(scripted.status).toBe(200);
  const jobId = uniqueId('cli-delta');
  const res = await listening.app.inject({
    method: 'POST',
    url: '/v1/jobs',
    headers: authHeader('default'),
    payload: { jobId, pattern: 'fanout', model, tasks: [{ id: 't', question: 'capital of Paraguay', agent: 'researcher' }] },
  });
  expect(res.statusCode, res.body).toBe(201);

  const { delegate } = cliRunner(listening.url);
  const human = await delegate(['events', jobId]);
  expect(human.code, human.stderr).toBe(0);
  const lines = human.stdout.trim().split('\n');
  const deltas = lines.filter((l) => /\bsubtask\.delta\b/.test(l));
  expect(deltas.length).toBeGreaterThan(1);
  const pieces = deltas.map((l) => JSON.parse(/ text=(".*")$/.exec(l)![1]) as string);
  expect(pieces.join('')).toBe(text);
  expect(deltas.every((l) => /taskId=t /.test(l))).toBe(true);
  const lastDelta = lines.lastIndexOf(deltas.at(-1)!);
  expect(lines.findIndex((l) => /\bsubtask\.step\b/.test(l))).toBeGreaterThan(lastDelta);
});
