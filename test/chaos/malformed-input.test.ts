/**
 * A seeded fuzzer sends a few thousand invalid or hostile requests to every route: every
 * answer is a 4xx problem+json, the API stays up, and not one workflow is started.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Client } from '@temporalio/client';
import { connect } from 'node:net';
import { recordScenario } from './audit';
import { fuzzRequest, prng, type FuzzRequest } from './fuzz';
import { CHAOS_AUTH, ChaosStack } from './harness';

let stack: ChaosStack;
beforeAll(async () => {
  stack = await ChaosStack.start({ name: 'fuzz' });
});
afterAll(async () => {
  await stack?.stop();
});

const SEED = Number(process.env.CHAOS_FUZZ_SEED ?? 20_251_130);
const REQUESTS = Number(process.env.CHAOS_FUZZ_REQUESTS ?? 3000);
const CONCURRENCY = 16;

async function countWorkflows(client: Client): Promise<number> {
  let n = 0;
  for await (const wf of client.workflow.list()) if (wf) n++;
  return n;
}

interface Answer {
  req: FuzzRequest;
  status: number;
  contentType: string;
  body: string;
}

/**
 * A body over the limit is answered (413) from its content-length, before it is read; the
 * server then closes the socket with the body unread, which resets the connection, and a
 * client still writing may lose the answer (fetch does: EPIPE). So oversized bodies go over
 * a raw socket that sends the headers, waits for the answer, and only then the body.
 */
function sendOversized(base: string, req: FuzzRequest): Promise<Answer> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const sock = connect(Number(url.port), url.hostname);
    let raw = Buffer.alloc(0);
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      sock.destroy();
      resolve({ req, ...parseHttp(raw.toString('utf8')) });
    };
    sock.on('data', (b: Buffer) => {
      raw = Buffer.concat([raw, b]);
      if (parseHttp(raw.toString('utf8')).complete) finish();
    });
    sock.on('error', finish);
    sock.on('close', finish);
    const body = Buffer.from(req.body!);
    sock.write(
      `${req.method} ${req.path} HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: ${CHAOS_AUTH.authorization}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
    );
    // no answer from the headers alone: send the body after all (the server must then count)
    setTimeout(() => !finished && raw.length === 0 && sock.write(body), 3000).unref();
    setTimeout(finish, 15_000).unref();
  });
}

/** Status, content-type and body of a raw HTTP/1.1 answer (content-length framed). */
function parseHttp(text: string): { status: number; contentType: string; body: string; complete: boolean } {
  const split = text.indexOf('\r\n\r\n');
  if (split < 0) return { status: 0, contentType: '', body: `no answer: ${text.slice(0, 100)}`, complete: false };
  const [first, ...lines] = text.slice(0, split).split('\r\n');
  const header = (name: string) =>
    lines
      .find((l) => l.toLowerCase().startsWith(`${name}:`))
      ?.slice(name.length + 1)
      .trim() ?? '';
  const body = text.slice(split + 4);
  const length = Number(header('content-length') || NaN);
  return { status: Number(first.split(' ')[1]), contentType: header('content-type'), body, complete: Buffer.byteLength(body) >= length };
}

async function send(base: string, req: FuzzRequest): Promise<Answer> {
  if (req.kind === 'jobs:too-large') return sendOversized(base, req);
  try {
    // every request carries the tenant's key unless the flaw is in its authorization
    const res = await fetch(`${base}${req.path}`, { method: req.method, headers: { ...CHAOS_AUTH, ...req.headers }, body: req.body });
    return { req, status: res.status, contentType: res.headers.get('content-type') ?? '', body: await res.text() };
  } catch (err) {
    return { req, status: 0, contentType: '', body: `network error: ${String((err as Error).cause ?? err)}` };
  }
}

/** Why an answer is wrong, or undefined when it is a proper 4xx problem+json. */
function wrong(a: Answer): string | undefined {
  if (a.status < 400 || a.status > 499) return `status ${a.status}`;
  if (!a.contentType.startsWith('application/problem+json')) return `content-type "${a.contentType}"`;
  try {
    const p = JSON.parse(a.body) as { type?: unknown; title?: unknown; status?: unknown };
    if (typeof p.type !== 'string' || typeof p.title !== 'string' || p.status !== a.status) return 'not a problem body';
  } catch {
    return 'body is not JSON';
  }
  return undefined;
}

it(`answers ${REQUESTS} invalid or hostile requests with 4xx problem+json and starts no workflow`, async () => {
  const started = Date.now();
  const client = await stack.client();
  const before = await countWorkflows(client);
  const r = prng(SEED);
  const requests = Array.from({ length: REQUESTS }, (_, i) => fuzzRequest(r, i));
  const answers: Answer[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < requests.length) answers.push(await send(stack.apiUrl, requests[next++]));
    }),
  );

  const byKind = new Map<string, number>();
  for (const a of answers) byKind.set(a.req.kind.split(':')[0], (byKind.get(a.req.kind.split(':')[0]) ?? 0) + 1);
  const failures = answers
    .map((a) => ({ a, why: wrong(a) }))
    .filter((f) => f.why)
    .map(({ a, why }) => `${a.req.kind} ${a.req.method} ${a.req.path.slice(0, 80)} -> ${why}: ${a.body.slice(0, 160)}`);
  expect([...new Set(failures)].slice(0, 20)).toEqual([]);

  // still up, still ready, and nothing was started
  expect((await fetch(`${stack.apiUrl}/healthz`)).status).toBe(200);
  expect((await fetch(`${stack.apiUrl}/readyz`)).status).toBe(200);
  await new Promise((res) => setTimeout(res, 1000));
  expect(await countWorkflows(client)).toBe(before);

  const statuses = new Map<number, number>();
  for (const a of answers) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
  recordScenario({
    scenario: `malformed input (${REQUESTS} requests, seed ${SEED})`,
    jobs: 0,
    subtasks: 0,
    lost: 0,
    duplicatedSteps: 0,
    seconds: (Date.now() - started) / 1000,
    notes: `answers ${[...statuses]
      .sort()
      .map(([s, n]) => `${s}x${n}`)
      .join(' ')}; 0 workflows started`,
  });
});
