/** A real HTTP agent on loopback whose behaviour a test switches: fail, answer, or spend and then fail. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll } from 'vitest';

/** What the upstream does at `/<mode>`: `ok` answers, `fail` answers 500, `spend` answers an unfinished step costing $0.3 (step 0) and then fails, `steps` answers unfinished $0.3 steps forever, `flaky` answers 500 to two calls of every three (the third answers). */
export type UpstreamMode = 'ok' | 'fail' | 'spend' | 'steps' | 'flaky';

/** Starts the upstream for this file (closed after it); `calls` counts requests per path, `healthy` turns `/switch` from failing to answering. */
export async function startAgentUpstream() {
  const calls = new Map<string, number>();
  const state = { healthy: false };
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const path = req.url ?? '/';
      calls.set(path, (calls.get(path) ?? 0) + 1);
      const send = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      const { step } = JSON.parse(raw) as { step: number };
      const answer = () =>
        send(200, { done: true, summary: `answered at ${path}`, data: { path }, confidence: 0.9, usage: { costUsd: 0.1 } });
      const spend = () => send(200, { done: false, summary: `step ${step}`, usage: { costUsd: 0.3 } });
      if (path === '/ok') return answer();
      if (path === '/switch') return state.healthy ? answer() : send(500, { error: 'down' });
      if (path === '/spend') return step === 0 ? spend() : send(500, { error: 'down after one step' });
      if (path === '/steps') return spend();
      if (path === '/flaky') return calls.get(path)! % 3 === 0 ? answer() : send(500, { error: 'transient' });
      send(500, { error: 'down' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls, state };
}
