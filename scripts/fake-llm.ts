/**
 * A stand-in for an LLM provider this machine cannot reach: a real HTTP server speaking the
 * OpenAI chat-completions protocol (JSON, or SSE with usage in the stream) and Anthropic's
 * Messages protocol (SSE), with a scripted model, and one tool endpoint (the wire formats:
 * fake-llm-wire.ts). Tests start it; `npm run fake-llm` runs it on :8082 for trying LLM agents by hand.
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
 *                              Model "asker" calls ask_parent once when it is offered ("Which
 *                              year do you mean?", answer {year: integer}), then answers
 *                              {"answer": <the last user turn>}; not offered: "could not ask".
 *   POST /v1/messages          the same scripts, answered as Anthropic Messages SSE
 *   POST /v1/models/m:streamGenerateContent?alt=sse   the same scripts, answered as Gemini SSE
 *                              (usageMetadata in every chunk, cachedContentTokenCount included)
 *   POST /v1/_script           {model, text?, toolCall?: {name, arguments}, chunkChars?, chunkDelayMs?}:
 *                              what model m answers from now on (a test's own model name)
 *   POST /tools/search         {"query"} → "results for <query>"
 *   GET  /v1/_captured?model=m  the raw bodies of the chat requests for model m, in order
 *   GET  /v1/_charged?model=m   the tokens charged for model m: input (cached part too) and output
 *                               as written, also for a stream the client cut
 *
 * Input tokens are the characters of the messages / 4. A request whose prefix the fake has seen
 * reports it cached: OpenAI's and Gemini's first two messages (automatic, implicit caching),
 * Anthropic's up to its cache_control mark (written on first sight, read after).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ROLE_SCRIPTS, roleTurn, type FakeMessage } from './fake-llm-roles';
import {
  anthropicCachePrefix,
  anthropicStream,
  fromAnthropic,
  fromGemini,
  geminiStream,
  openAiJson,
  openAiStream,
  type Charged,
  type FakeAnswer,
  type FakeInput,
} from './fake-llm-wire';

type Message = FakeMessage;

/** A running fake provider; `requests` records every chat request for assertions. */
export interface FakeLlm {
  server: Server;
  url: string;
  requests: { model: string; max_tokens?: number; tools?: { function: { name: string } }[]; messages: Message[] }[];
  /** Every chat request's body exactly as it arrived (for byte-for-byte comparisons). */
  captured: { model: string; body: string }[];
  /** What the fake charged, by model. */
  charged: Map<string, Charged>;
}

/** A test's script for its own model (`POST /v1/_script`). */
interface ScriptedAnswer {
  text?: string;
  toolCall?: { name: string; arguments?: object };
  chunkChars?: number;
  chunkDelayMs?: number;
}

/** The answer schema the "asker" script's question carries. */
const ASKER_SCHEMA = { type: 'object', properties: { year: { type: 'integer' } }, required: ['year'] };

/** The script a model name plays: the name before its "#tag" (or "~tag": Gemini's model is a URL path, where "#" cannot go). */
const scriptName = (model: string) => model.split(/[#~]/)[0];

/** What a legacy script answers, as chat messages decide it (the scripts predate the wire formats). */
function scriptAnswer(r: FakeLlm['requests'][number], n: number): FakeAnswer {
  const named = scriptName(r.model);
  const script = named.endsWith('+slow') ? named.slice(0, -'+slow'.length) : named;
  const question = (r.messages.find((m) => m.role === 'user')?.content ?? '').split('\n')[0];
  const last = r.messages[r.messages.length - 1];
  const outputTokens = Math.min(r.max_tokens ?? 12, 12);
  const call = (name: string, args: object, i = 0) => ({ id: `call_${n}_${i}`, name, arguments: JSON.stringify(args) });
  if (ROLE_SCRIPTS.includes(script)) {
    const turn = roleTurn(
      script,
      r.messages,
      (r.tools ?? []).map((t) => t.function.name),
    );
    return 'content' in turn
      ? { text: turn.content, outputTokens }
      : { toolCalls: turn.tool_calls.map((c, i) => call(c.name, c.args, i)), outputTokens };
  }
  if (script === 'asker') {
    // asks its parent once (when it may), then answers with what the last user turn said
    const asked = r.messages.some((m) => m.tool_calls?.some((c) => c.function.name === 'ask_parent'));
    if (!(r.tools ?? []).some((t) => t.function.name === 'ask_parent'))
      return { text: JSON.stringify({ answer: 'could not ask' }), outputTokens };
    if (!asked)
      return { toolCalls: [call('ask_parent', { question: 'Which year do you mean?', answerSchema: ASKER_SCHEMA })], outputTokens };
    const said = [...r.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    return { text: JSON.stringify({ answer: said }), outputTokens };
  }
  if (script === 'rogue') return { toolCalls: [call('shell', { cmd: 'cat /etc/passwd' })], outputTokens };
  if (script === 'toolplan') {
    const plan = /plan:\s*(.*)$/.exec(question)?.[1].split(/\s+/).filter(Boolean) ?? [];
    const answers = r.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    return answers.length < plan.length
      ? { toolCalls: [call(plan[answers.length], { term: 'durable' })], outputTokens }
      : { text: JSON.stringify({ answer: answers }), outputTokens };
  }
  if (r.model === 'judge') return { text: JSON.stringify(judge(r.messages.find((m) => m.role === 'user')?.content ?? '')), outputTokens };
  if (last.role === 'tool') return { text: JSON.stringify({ answer: last.content }), outputTokens };
  if (r.tools?.length) return { toolCalls: [call(r.tools[0].function.name, { query: question })], outputTokens };
  return { text: JSON.stringify({ answer: `direct: ${question}` }), outputTokens };
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
  const charged: FakeLlm['charged'] = new Map();
  const scripts = new Map<string, ScriptedAnswer>();
  const seen = new Set<string>();
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
      if (req.method === 'GET' && req.url?.startsWith('/v1/_charged')) {
        const model = new URL(req.url, 'http://x').searchParams.get('model') ?? '';
        return send(200, charged.get(model) ?? { requests: 0, input: 0, cached: 0, output: 0 });
      }
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw || '{}');
      } catch {
        return send(400, { error: { message: 'invalid JSON' } });
      }
      if (req.url === '/tools/search')
        return res.writeHead(200, { 'content-type': 'text/plain' }).end(`results for ${String(body.query ?? '')}`);
      if (req.url === '/v1/_script') {
        scripts.set(String(body.model), body as ScriptedAnswer);
        return send(200, { ok: true });
      }
      const anthropic = req.url === '/v1/messages';
      const gemini = /^\/v1\/models\/([^:/?]+):streamGenerateContent(\?|$)/.exec(req.url ?? '');
      if (req.url !== '/v1/chat/completions' && !anthropic && !gemini) return send(404, { error: { message: `no route ${req.url}` } });
      const r = (anthropic
        ? { ...(body as { model: string; max_tokens?: number }), ...fromAnthropic(body) }
        : gemini
          ? { model: decodeURIComponent(gemini[1]), ...fromGemini(body) }
          : body) as unknown as FakeLlm['requests'][number] & { stream?: boolean; stream_options?: { include_usage?: boolean } };
      r.max_tokens ??= (body as { max_completion_tokens?: number }).max_completion_tokens;
      requests.push(r);
      captured.push({ model: r.model, body: raw });
      const tally = charged.get(r.model) ?? { requests: 0, input: 0, cached: 0, output: 0 };
      charged.set(r.model, tally);
      const chars = r.messages.reduce((n, m) => n + (m.content?.length ?? 0), 0);
      const inp: FakeInput = { input: Math.ceil(chars / 4), cached: 0 };
      if (anthropic) {
        const prefix = anthropicCachePrefix(body);
        if (prefix !== undefined) {
          const tokens = Math.min(inp.input, Math.ceil(prefix.length / 4));
          if (seen.has(`${r.model}\n${prefix}`)) inp.cached = tokens;
          else inp.cacheWrite = tokens;
          seen.add(`${r.model}\n${prefix}`);
        }
      } else if (r.messages.length >= 2) {
        // each provider's cache is its own
        const prefix = `${gemini ? 'gemini' : 'openai'}\n${r.model}\n${JSON.stringify(r.messages.slice(0, 2))}`;
        if (seen.has(prefix)) inp.cached = Math.ceil(((r.messages[0].content?.length ?? 0) + (r.messages[1].content?.length ?? 0)) / 4);
        seen.add(prefix);
      }
      tally.requests++;
      tally.input += inp.input;
      tally.cached += inp.cached;
      const own = scripts.get(r.model);
      const answer: FakeAnswer = own
        ? {
            ...(own.text !== undefined ? { text: own.text } : {}),
            ...(own.toolCall
              ? {
                  toolCalls: [
                    { id: `call_${requests.length}`, name: own.toolCall.name, arguments: JSON.stringify(own.toolCall.arguments ?? {}) },
                  ],
                }
              : {}),
            chunkChars: own.chunkChars,
            chunkDelayMs: own.chunkDelayMs,
          }
        : scriptAnswer(r, requests.length);
      // a script ending in "+slow" answers after a second (a child that is still running)
      const slow = scriptName(r.model).endsWith('+slow');
      const reply = () =>
        void (anthropic
          ? anthropicStream(res, r.model, answer, inp, tally)
          : gemini
            ? geminiStream(res, r.model, answer, inp, tally)
            : r.stream
              ? openAiStream(res, r.model, answer, inp, r.stream_options?.include_usage === true, tally)
              : openAiJson(res, r.model, answer, inp, tally));
      if (slow) setTimeout(reply, 1000);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, captured, charged };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { url } = await startFakeLlm(Number(process.env.PORT ?? 8082));
  console.log(
    `fake LLM provider at ${url}/v1 (models "scripted", "rogue", "toolplan", "judge", "role", "role-twice", "role-skip", "role-wrongkind", "role-ask", "role-wipe", "asker"; "#tag" / "~tag" and "+slow" suffixes); tool at ${url}/tools/search`,
  );
}
