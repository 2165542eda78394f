/**
 * A stand-in for an embeddings provider this machine cannot reach: a real HTTP server speaking
 * the OpenAI embeddings protocol. Its vectors are hashed bags of routing terms (the stems of
 * activities/agents/text-terms.ts), so texts that share words are close: deterministic, not
 * semantic. Tests start it; `npm run fake-embeddings` runs it on :8083 for trying by hand.
 *
 *   POST /v1/embeddings  {model, input: string | string[]} → {data: [{index, embedding}], model, usage}
 *                        model "broken" answers 500; `failing = true` makes every model do so.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { terms } from '../activities/agents/text-terms';

/** Dimensions of the fake vectors. */
export const FAKE_EMBEDDING_DIMS = 4096;

/** A running fake provider; `requests` records every request, `failing` turns on 500s. */
export interface FakeEmbeddings {
  server: Server;
  /** Base URL to set as DELEGATE_EMBEDDINGS_URL (ends in /v1). */
  url: string;
  requests: { model: string; input: string[]; authorization?: string }[];
  failing: boolean;
}

/** FNV-1a, 32 bits. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The fake vector of a text: each term adds ±1 at its hashed dimension; L2-normalised. */
export function fakeEmbedding(text: string): number[] {
  const v = new Array<number>(FAKE_EMBEDDING_DIMS).fill(0);
  for (const t of terms(text)) {
    const h = hash(t);
    v[h % FAKE_EMBEDDING_DIMS] += h & 0x80000000 ? -1 : 1;
  }
  const norm = Math.hypot(...v);
  return norm === 0 ? v : v.map((x) => x / norm);
}

/** Starts the fake provider on loopback. */
export async function startFakeEmbeddings(port = 0): Promise<FakeEmbeddings> {
  const fake: FakeEmbeddings = { server: undefined as unknown as Server, url: '', requests: [], failing: false };
  fake.server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const send = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.method !== 'POST' || req.url !== '/v1/embeddings')
        return send(404, { error: { message: `no route ${req.method} ${req.url}` } });
      let body: { model?: unknown; input?: unknown };
      try {
        body = JSON.parse(raw || '{}');
      } catch {
        return send(400, { error: { message: 'invalid JSON' } });
      }
      const input = typeof body.input === 'string' ? [body.input] : body.input;
      if (typeof body.model !== 'string' || !Array.isArray(input) || input.some((x) => typeof x !== 'string')) {
        return send(400, { error: { message: 'expected {model: string, input: string | string[]}' } });
      }
      fake.requests.push({ model: body.model, input: input as string[], authorization: req.headers.authorization });
      if (fake.failing || body.model === 'broken') return send(500, { error: { message: 'the model is down' } });
      const tokens = (input as string[]).reduce((n, s) => n + terms(s).length, 0);
      send(200, {
        object: 'list',
        model: body.model,
        data: (input as string[]).map((s, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(s) })),
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      });
    });
  });
  await new Promise<void>((resolve) => fake.server.listen(port, '127.0.0.1', () => resolve()));
  fake.url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}/v1`;
  return fake;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { url } = await startFakeEmbeddings(Number(process.env.PORT ?? 8083));
  console.log(`fake embeddings provider at ${url} (POST /embeddings; any model but "broken")`);
}
