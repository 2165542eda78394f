/**
 * An example agent served over HTTP, speaking Delegate's agent protocol: it counts the
 * words of the question. Start it with `npm run example-agent` (port 8081, or PORT) and run
 * Delegate with `DELEGATE_AGENTS_FILE=agents.example.json npm start`. Tests start it too.
 *
 *   POST /wordcount  one step: { words, characters } (spends one token per word)
 *   POST /flaky      like /wordcount, but answers 503 to every first attempt
 *   POST /broken     answers 200 with something that is not a step reply
 *   POST /forbidden  answers 403
 *   POST /bulky      one step returning 12 evidence items of 19 KB each (payload-limit tests)
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface StepBody {
  task: { question: string };
  attempt: number;
  budgetLeft: { tokens?: number };
  stepKey: string;
}

/** Starts the example agent on loopback; resolves with the server and its base URL. */
export async function startExampleAgent(port = 0): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      if (req.method !== 'POST') return send(405, { error: 'POST a step' });
      let step: StepBody;
      try {
        step = JSON.parse(raw) as StepBody;
      } catch {
        return send(400, { error: 'body is not JSON' });
      }
      if (req.url === '/forbidden') return send(403, { error: 'not for you' });
      if (req.url === '/broken') return send(200, { hello: 'this is not a step reply' });
      if (req.url === '/bulky') {
        const evidence = Array.from({ length: 12 }, (_, k) => ({
          id: `${step.stepKey}#${k}`,
          source: 'bulky',
          snippet: 'e'.repeat(19_000),
        }));
        return send(200, { done: true, summary: 'bulky', data: { items: evidence.length }, evidence });
      }
      if (req.url === '/flaky' && step.attempt === 1) return send(503, { error: 'warming up' });
      if (req.url !== '/wordcount' && req.url !== '/flaky') return send(404, { error: `no agent at ${req.url}` });
      const words = step.task.question.trim().split(/\s+/).filter(Boolean).length;
      const tokens = Math.min(words, step.budgetLeft.tokens ?? Infinity);
      send(200, {
        done: true,
        usage: { tokens, costUsd: tokens * 0.00001 },
        summary: `${words} words`,
        data: { words, characters: step.task.question.length },
        confidence: 1,
        channelsHit: ['wordcount'],
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { url } = await startExampleAgent(Number(process.env.PORT ?? 8081));
  console.log(`example agent listening at ${url} (POST /wordcount)`);
}
