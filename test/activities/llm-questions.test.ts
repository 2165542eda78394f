/**
 * An LLM agent's question through the `ask_parent` host tool, against the real server and
 * worker and the fake provider on each of its wire formats: a task that allows questions offers
 * the tool, the model's call ends the step with an `ask` (an inbox question with its answer
 * schema), a steering message queues meanwhile, the answer posted through
 * `POST /v1/approvals/:id` is checked, and the next model request carries the answer and the
 * message as a user turn. A task that does not allow questions never offers the tool.
 */
import { describe, expect, it } from 'vitest';
import type { InboxItem, JobResult } from '../../schemas';
import { pollUntil, uniqueId, useApp } from '../helpers';
import { capturedBodies } from '../fake-llm';

const app = useApp({ DELEGATE_APPROVAL_SECRET: 'approval-secret-for-tests-0123456789', PUBLIC_URL: 'http://delegate.test' });
const post = (url: string, payload: object) => app.inject({ method: 'POST', url, payload });

/** The raw bodies of the model's requests, in order. */
const captured = capturedBodies;

/** The user turns' text of a request body, whatever the wire format (chat completions, Anthropic Messages, Gemini). */
function userTexts(body: Record<string, unknown>): string[] {
  type Part = { type?: string; text?: string };
  const text = (c: unknown) =>
    typeof c === 'string'
      ? c
      : ((c ?? []) as Part[]).map((p) => (p.type === undefined || p.type === 'text' ? (p.text ?? '') : '')).join('');
  if (Array.isArray(body.contents))
    return (body.contents as { role: string; parts?: Part[] }[])
      .filter((c) => c.role === 'user')
      .map((c) => text(c.parts))
      .filter(Boolean);
  return ((body.messages ?? []) as { role: string; content: unknown }[])
    .filter((m) => m.role === 'user')
    .map((m) => text(m.content))
    .filter(Boolean);
}

/** The names of the tools a request body offers. */
function toolNames(body: Record<string, unknown>): string[] {
  const tools = (body.tools ?? []) as { name?: string; function?: { name: string }; functionDeclarations?: { name: string }[] }[];
  return tools.flatMap((t) => (t.functionDeclarations ? t.functionDeclarations.map((d) => d.name) : [t.function?.name ?? t.name ?? '']));
}

async function pendingOf(jobId: string): Promise<InboxItem> {
  let item: InboxItem | undefined;
  await pollUntil(
    async () => {
      item = ((await app.inject({ method: 'GET', url: `/v1/approvals?jobId=${jobId}` })).json() as { items: InboxItem[] }).items[0];
      return item !== undefined;
    },
    () => `job ${jobId} never opened an inbox item`,
  );
  return item!;
}

const result = async (jobId: string) => {
  const res = await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}/result?waitSeconds=30` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as JobResult;
};

describe.each(['researcher', 'claude-researcher', 'gemini-researcher'])('ask_parent (%s)', (agent) => {
  it('the model asks, the subtask waits, and the answer and a steering message reach the next turn as a user message', async () => {
    // "~tag": a model of the test's own playing the "asker" script (Gemini's model is a URL path: no "#")
    const model = uniqueId('asker~q');
    const jobId = uniqueId('llm-ask');
    const res = await post('/v1/jobs', {
      jobId,
      pattern: 'fanout',
      model,
      allowQuestions: true,
      tasks: [{ id: 't', question: 'when?', agent }],
    });
    expect(res.statusCode, res.body).toBe(201);
    const item = await pendingOf(jobId);
    expect(item).toMatchObject({
      kind: 'question',
      taskId: 't',
      detail: { question: 'Which year do you mean?', answerSchema: { required: ['year'] } },
    });
    const [firstBody] = await captured(model);
    expect(toolNames(firstBody)).toContain('ask_parent');

    // steering while it waits: queued for the next step
    const steer = await post(`/v1/jobs/${jobId}/subtasks/t/messages`, { text: 'focus on Peru', from: 'lead' });
    expect(steer.statusCode, steer.body).toBe(202);
    // the question's own schema is checked before the answer lands
    expect((await post(`/v1/approvals/${item.id}`, { answer: { year: 'soon' } })).statusCode).toBe(422);
    const answered = await post(`/v1/approvals/${item.id}`, { answer: { year: 2024 }, note: 'the fiscal year' });
    expect(answered.statusCode, answered.body).toBe(200);

    const r = (await result(jobId)).results[0];
    expect(r.status, JSON.stringify(r.errors)).toBe('success');
    expect(r.metrics.steps).toBe(2);
    const bodies = await captured(model);
    expect(bodies).toHaveLength(2);
    // the next request: the answer and the message in the last user turn (after the ask's tool result)
    const last = userTexts(bodies[1]).at(-1) ?? '';
    expect(last).toContain('The parent answered your question ("Which year do you mean?"): {"year":2024}');
    expect(last).toContain('Note: the fiscal year');
    expect(last).toContain('Message from lead: focus on Peru');
    // the model read it: its answer is that turn
    expect(r.data).toEqual({ answer: last });
    expect(r.notes?.join('\n')).toMatch(/question .* answered by key:default: the fiscal year/);
    expect(r.notes?.join('\n')).toMatch(/message from lead received by step 1: focus on Peru/);
  });
});

it('a task that does not allow questions never offers ask_parent', async () => {
  const model = uniqueId('asker~none');
  const jobId = uniqueId('llm-noask');
  expect(
    (await post('/v1/jobs', { jobId, pattern: 'fanout', model, tasks: [{ id: 't', question: 'when?', agent: 'researcher' }] })).statusCode,
  ).toBe(201);
  const r = (await result(jobId)).results[0];
  expect(r).toMatchObject({ status: 'success', data: { answer: 'could not ask' }, metrics: { steps: 1 } });
  expect(toolNames((await captured(model))[0])).not.toContain('ask_parent');
});
