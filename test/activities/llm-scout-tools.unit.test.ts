/**
 * The LLM agent's host tools (read_file, grep) against a fake OpenAI-compatible provider on
 * loopback (chat-completions SSE, the fake provider's wire format), one step at a time (the
 * subtask loop is tested with the real server elsewhere).
 */
import { ApplicationFailure } from '@temporalio/activity';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLlmAgent } from '../../activities/agents/llm';
import { openAiJson, openAiStream, type FakeAnswer } from '../../scripts/fake-llm-wire';
import type { StepReply } from '../../activities/agents/types';
import { scoutTree } from './scout-tree';

interface Msg {
  role: string;
  content: string | null;
}
interface ChatRequest {
  model: string;
  stream?: boolean;
  messages: Msg[];
  tools?: { function: { name: string } }[];
}

const tree = scoutTree();
const requests: ChatRequest[] = [];
let baseUrl = '';

/** What each scripted model asks for on its first turn; after a tool answer it echoes it. */
const FIRST_CALL: Record<string, { name: string; args: object }> = {
  grepper: { name: 'grep', args: { pattern: 'computeBackoff\\(' } },
  reader: { name: 'read_file', args: { path: 'src/lib/backoff.ts', offset: 8, limit: 1 } },
  escaper: { name: 'read_file', args: { path: '../outside/secret.ts' } },
  writer: { name: 'write_file', args: { path: 'src/client.ts', content: 'pwned' } },
};

const server = createServer((req, res) => {
  let raw = '';
  req.on('data', (c) => (raw += c));
  req.on('end', () => {
    const body = JSON.parse(raw) as ChatRequest;
    requests.push(body);
    const last = body.messages[body.messages.length - 1];
    const call = FIRST_CALL[body.model];
    const answer: FakeAnswer =
      last.role === 'tool' || !call
        ? { text: JSON.stringify({ seen: last.content }), outputTokens: 5 }
        : { toolCalls: [{ id: `call_${requests.length}`, name: call.name, arguments: JSON.stringify(call.args) }], outputTokens: 5 };
    const charged = { requests: 0, input: 0, cached: 0, output: 0 };
    const input = { input: 10, cached: 0 };
    if (body.stream) void openAiStream(res, body.model, answer, input, true, charged);
    else openAiJson(res, body.model, answer, input, charged);
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => {
  server.close();
  tree.cleanup();
});

/** An LLM scout with the host tools, rooted at the fixture tree. */
const agent = (model: string) =>
  createLlmAgent({ kind: 'llm', id: `llm-${model}`, baseUrl, model, hostTools: ['read_file', 'grep'] }, {}, { scoutRoot: tree.root });

/** Runs steps until done (at most 3), as the subtask loop would, for a scout-shaped task. */
async function run(model: string, scope: string[], paths: string[] = ['src']): Promise<StepReply[]> {
  const a = agent(model);
  const replies: StepReply[] = [];
  let state: unknown;
  for (let step = 0; step < 3; step++) {
    const r = await a.step({
      task: { id: 't', question: 'where is computeBackoff defined', scope },
      params: { paths },
      step,
      attempt: 1,
      state,
      budgetLeft: {},
      stepKey: `job/t#${step}`,
      sleep: async () => {},
      signal: new AbortController().signal,
    });
    replies.push(r);
    state = r.state;
    if (r.done) break;
  }
  return replies;
}

const lastRequest = (model: string) => requests.filter((r) => r.model === model).at(-1)!;
const toolMessage = (model: string) => lastRequest(model).messages.find((m) => m.role === 'tool')?.content;

describe('LLM host tools on a scout task', () => {
  it('offers read_file and grep only as far as the task scope allows them', async () => {
    await run('plain', ['read_file', 'grep']);
    expect(lastRequest('plain').tools?.map((t) => t.function.name)).toEqual(['read_file', 'grep']);
    await run('plain', ['grep']);
    expect(lastRequest('plain').tools?.map((t) => t.function.name)).toEqual(['grep']);
    await run('plain', []);
    expect(lastRequest('plain').tools).toBeUndefined();
    expect(agent('plain').manifest.tools).toEqual(['read_file', 'grep']);
  });

  it('runs the grep a model asks for on the scope and gives it the real matches in the next turn', async () => {
    const [first, second] = await run('grepper', ['read_file', 'grep']);
    expect(first).toMatchObject({ done: false, usage: { toolCalls: 1 }, channelsHit: ['grep'] });
    expect(second.done).toBe(true);
    expect(toolMessage('grepper')).toBe(
      'src/client.ts:12:       await new Promise((r) => setTimeout(r, computeBackoff(attempt, defaults)));\nsrc/lib/backoff.ts:8: export function computeBackoff(attempt: number, opts: BackoffOptions): number {',
    );
    expect(second.data).toEqual({ seen: toolMessage('grepper') });
  });

  it('reads numbered lines with read_file', async () => {
    await run('reader', ['read_file', 'grep']);
    expect(toolMessage('reader')).toMatch(/^src\/lib\/backoff\.ts\n8\texport function computeBackoff\(/);
  });

  it('answers a path outside the scope with an error the model sees, never the file', async () => {
    await run('escaper', ['read_file', 'grep']);
    expect(toolMessage('escaper')).toMatch(/^error: outside_scope: /);
    expect(toolMessage('escaper')).not.toContain('do not read');
  });

  it('ends in tool_denied when the model asks for a tool it was not offered, without retrying', async () => {
    for (const [model, scope] of [
      ['writer', ['read_file', 'grep']],
      ['grepper', ['read_file']],
    ] as const) {
      const err = await run(model, [...scope]).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ApplicationFailure);
      expect(err).toMatchObject({ type: 'ToolDenied', nonRetryable: true });
    }
    expect(String(await run('writer', ['read_file', 'grep']).catch((e: Error) => e.message))).toContain('"write_file"');
  });
});
