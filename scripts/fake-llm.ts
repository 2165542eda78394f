/**
 * A stand-in for an LLM provider this machine cannot reach: a real HTTP server speaking the
 * OpenAI chat-completions protocol, with a scripted model, and one tool endpoint. Tests start
 * it; `npm run fake-llm` runs it on :8082 for trying LLM agents by hand.
 *
 *   POST /v1/chat/completions  model "scripted": calls the first tool it is offered once,
 *                              then answers {"answer": <tool result>}; with no tools it
 *                              answers {"answer": "direct: <question>"}. Model "rogue" always
 *                              asks for a tool named "shell". Model "judge" answers Delegate's
 *                              judge: a rubric holds when the answer contains its quoted word.
 *                              Models "role…" play the bootstrap protocol (fake-llm-roles.ts).
 *                              Model "toolplan" calls the tools its question lists after
 *                              "plan:" in order, offered or not ({"term": "durable"}), one per
 *                              turn, then answers {"answer": [each tool's answer]}.
 *   POST /tools/search         {"query"} → "results for <query>"
 *   GET  /v1/_captured?model=m  the raw bodies of the chat requests for model m, in order
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ROLE_SCRIPTS, roleTurn, type FakeMessage } from './fake-llm-roles';

type Message = FakeMessage;

/** A running fake provider; `requests` records every chat request for assertions. */
export interface FakeLlm {
  server: Server;
  url: string;
  requests: { model: string; max_tokens?: number; tools?: { function: { name: string } }[]; messages: Message[] }[];
  /** Every chat request's body exactly as it arrived (for byte-for-byte comparisons). */
  captured: { model: string; body: string }[];
}

/** The scripted judge: each rubric of the prompt holds when the answer contains the word the rubric quotes. */
function judge(prompt: string): { verdicts: { rubric: string; satisfied: boolean; why: string }[] } {
  const rubricsBlock = /Rubrics:\n((?:- .*\n?)+)/.exec(prompt)?.[1] ?? '';
  const answer = /Answer: ([\s\S]*)/.exec(prompt)?.[1] ?? '';
  return {
    verdicts: rubricsBlock
      .split('\n')
      .filter((l) => l.startsWith('- '))
      .map((l) => {
        const rubric = l.slice(2);
        const word = /"([^"]+)"/.exec(rubric)?.[1];
        const satisfied = word !== undefined && answer.includes(word);
        return { rubric, satisfied, why: satisfied ? `the answer mentions ${word}` : 'the answer does not show it' };
      }),
  };
}

/** Starts the fake provider on loopback. */
export async function startFakeLlm(port = 0): Promise<FakeLlm> {
  const requests: FakeLlm['requests'] = [];
  const captured: FakeLlm['captured'] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const send = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.method === 'GET' && req.url?.startsWith('/v1/_captured')) {
        const model = new URL(req.url, 'http://x').searchParams.get('model');
        return send(
          200,
          captured.filter((c) => model === null || c.model === model),
        );
      }
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw || '{}');
      } catch {
        return send(400, { error: { message: 'invalid JSON' } });
      }
      if (req.url === '/tools/search')
        return res.writeHead(200, { 'content-type': 'text/plain' }).end(`results for ${String(body.query ?? '')}`);
      if (req.url !== '/v1/chat/completions') return send(404, { error: { message: `no route ${req.url}` } });
      const r = body as unknown as FakeLlm['requests'][number];
      requests.push(r);
      captured.push({ model: r.model, body: raw });
      // a model may carry a "#tag" (tests find their own requests by it); the script is the name before it,
      // and a script ending in "+slow" answers after a second (a child that is still running)
      const named = r.model.split('#')[0];
      const slow = named.endsWith('+slow');
      const script = slow ? named.slice(0, -'+slow'.length) : named;
      const question = (r.messages.find((m) => m.role === 'user')?.content ?? '').split('\n')[0];
      const last = r.messages[r.messages.length - 1];
      const chars = r.messages.reduce((n, m) => n + (m.content?.length ?? 0), 0);
      const usage = { prompt_tokens: Math.ceil(chars / 4), completion_tokens: Math.min(r.max_tokens ?? 12, 12) };
      const toolCall = (name: string, args: object) => ({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: `call_${requests.length}`, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
      });
      let message: object;
      if (ROLE_SCRIPTS.includes(script)) {
        const turn = roleTurn(
          script,
          r.messages,
          (r.tools ?? []).map((t) => t.function.name),
        );
        message =
          'content' in turn
            ? { role: 'assistant', content: turn.content }
            : {
                role: 'assistant',
                content: null,
                tool_calls: turn.tool_calls.map((c, i) => ({
                  id: `call_${requests.length}_${i}`,
                  type: 'function',
                  function: { name: c.name, arguments: JSON.stringify(c.args) },
                })),
              };
      } else if (script === 'rogue') message = toolCall('shell', { cmd: 'cat /etc/passwd' });
      else if (script === 'toolplan') {
        const plan = /plan:\s*(.*)$/.exec(question)?.[1].split(/\s+/).filter(Boolean) ?? [];
        const answers = r.messages.filter((m) => m.role === 'tool').map((m) => m.content);
        message =
          answers.length < plan.length
            ? toolCall(plan[answers.length], { term: 'durable' })
            : { role: 'assistant', content: JSON.stringify({ answer: answers }) };
      } else if (r.model === 'judge')
        message = { role: 'assistant', content: JSON.stringify(judge(r.messages.find((m) => m.role === 'user')?.content ?? '')) };
      else if (last.role === 'tool') message = { role: 'assistant', content: JSON.stringify({ answer: last.content }) };
      else if (r.tools?.length) message = toolCall(r.tools[0].function.name, { query: question });
      else message = { role: 'assistant', content: JSON.stringify({ answer: `direct: ${question}` }) };
      const reply = () =>
        send(200, {
          id: `chatcmpl-${requests.length}`,
          object: 'chat.completion',
          model: r.model,
          choices: [{ index: 0, message, finish_reason: 'stop' }],
          usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
        });
      if (slow) setTimeout(reply, 1000);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, captured };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { url } = await startFakeLlm(Number(process.env.PORT ?? 8082));
  console.log(
    `fake LLM provider at ${url}/v1 (models "scripted", "rogue", "toolplan", "judge", "role", "role-twice", "role-skip", "role-wrongkind", "role-ask"; "#tag" and "+slow" suffixes); tool at ${url}/tools/search`,
  );
}
