/**
 * The client's SSE iterator against a scripted server on loopback (no Temporal): comments
 * skipped, events split across chunks, a dropped connection resumed with Last-Event-ID
 * without gaps or repeats, the end after job.finished, a 404 as a problem, an abort.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createDelegateClient, DelegateProblemError, type JobEvent } from 'delegate/client';

// scripted events: their data need not be what each type carries
const ev = (seq: number, type: JobEvent['type'], data: Record<string, unknown> = {}) =>
  ({ seq, type, at: new Date(1_700_000_000_000 + seq).toISOString(), data }) as JobEvent;
const frame = (e: JobEvent) => `id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;

let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

/** Serves `handle` on loopback; answers a client of it. */
async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void) {
  server = createServer(handle);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return createDelegateClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'k1', retries: 3 });
}

const stream = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream' });

describe('client.events()', () => {
  it('yields events in order, skips comments, follows chunks split mid-event, ends after job.finished', async () => {
    const auth: (string | undefined)[] = [];
    const client = await serve((req, res) => {
      auth.push(req.headers.authorization);
      stream(res);
      const all = [
        ev(1, 'job.started', { tasks: 2 }),
        ev(2, 'subtask.started', { taskId: 'a' }),
        ev(3, 'subtask.finished', { taskId: 'a', status: 'success' }),
        ev(4, 'job.finished', { status: 'success' }),
      ];
      const text = `: ping\n\n${all.map(frame).join('')}${frame(ev(5, 'budget.changed'))}`;
      // three-byte chunks: the parser must put events back together
      let i = 0;
      const t = setInterval(() => {
        if (i >= text.length) return clearInterval(t);
        res.write(text.slice(i, (i += 3)));
      }, 0);
      // the server keeps the connection open: the client must end by itself after job.finished
    });
    const got: JobEvent[] = [];
    for await (const e of client.events('j1')) got.push(e);
    expect(got.map((e) => [e.seq, e.type])).toEqual([
      [1, 'job.started'],
      [2, 'subtask.started'],
      [3, 'subtask.finished'],
      [4, 'job.finished'],
    ]);
    expect(got[2].data).toEqual({ taskId: 'a', status: 'success' });
    expect(auth).toEqual(['Bearer k1']);
  });

  it('resumes a dropped stream with Last-Event-ID: no gap, no repeat', async () => {
    const lastIds: (string | undefined)[] = [];
    const all = [1, 2, 3, 4, 5].map((s) => ev(s, s === 5 ? 'job.finished' : 'subtask.step', { step: s }));
    const client = await serve((req, res) => {
      const last = req.headers['last-event-id'] as string | undefined;
      lastIds.push(last);
      stream(res);
      const after = Number(last ?? 0);
      if (lastIds.length === 1) {
        // two events, then the connection drops
        res.write(all.slice(0, 2).map(frame).join(''));
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      }
      // a server that replays a little too much: the client drops what it has seen
      res.end(
        all
          .filter((e) => e.seq >= after)
          .map(frame)
          .join(''),
      );
    });
    const seqs: number[] = [];
    for await (const e of client.events('j1')) seqs.push(e.seq);
    expect(seqs).toEqual([1, 2, 3, 4, 5]);
    expect(lastIds).toEqual([undefined, '2']);
  });

  it('starts after `after`, and a 404 surfaces as a DelegateProblemError without retrying', async () => {
    const urls: string[] = [];
    const client = await serve((req, res) => {
      urls.push(`${req.url} ${req.headers['last-event-id']}`);
      res
        .writeHead(404, { 'content-type': 'application/problem+json' })
        .end(JSON.stringify({ type: 'https://delegate.dev/problems/not-found', title: 'Not found', status: 404, detail: 'no such job' }));
    });
    const it = client.events('nope', { after: 7 });
    const err = await it.next().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DelegateProblemError);
    expect((err as DelegateProblemError).status).toBe(404);
    expect((err as DelegateProblemError).detail).toBe('no such job');
    expect(urls).toEqual(['/v1/jobs/nope/events 7']);
  });

  it('gives up after the retries when the stream keeps failing, and stops on abort', async () => {
    let calls = 0;
    const client = await serve((_req, res) => {
      calls++;
      res
        .writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': '0' })
        .end(JSON.stringify({ type: 'x', title: 'Temporal unavailable', status: 503 }));
    });
    const err = await client
      .events('j1')
      .next()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DelegateProblemError);
    expect(calls).toBe(4);

    server!.removeAllListeners('request');
    server!.on('request', (_req, res: ServerResponse) => {
      stream(res);
      res.write(frame(ev(1, 'job.started')));
    });
    const ctl = new AbortController();
    const seen: number[] = [];
    const done = (async () => {
      for await (const e of client.events('j1', { signal: ctl.signal })) {
        seen.push(e.seq);
        ctl.abort(new Error('enough'));
      }
    })();
    await expect(done).rejects.toThrow('enough');
    expect(seen).toEqual([1]);
  });
});
