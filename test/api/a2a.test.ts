/** Delegate as an A2A 1.0 agent, driven by the SDK's own client (ClientFactory) over a real socket. */
import { TaskState, type Message, type Part, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import type { FastifyInstance } from 'fastify';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsListedWithId, listeningApp, pollUntil, uniqueId } from '../helpers';
import { authHeader, type TestTenant } from '../tenants';
import { TEST_WEBHOOK_SECRET, verifyForTenant } from '../webhook-secret';
import { a2aMessage } from '../a2a-fixtures';

let app: FastifyInstance;
let url: string;
let receiver: Server;
let receiverUrl: string;
const pushes: { headers: IncomingMessage['headers']; body: string }[] = [];

beforeAll(async () => {
  ({ app, url } = await listeningApp({ DELEGATE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET }, null));
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      pushes.push({ headers: req.headers, body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/a2a-push`;
});
afterAll(async () => {
  await app?.close();
  await new Promise((r) => receiver?.close(r));
});

/** The SDK's client for Delegate (the file's app, or the one at `at`) as `tenant`, its card read from the well-known path. */
async function clientAs(tenant: TestTenant = 'default', at = url): Promise<Client> {
  const fetchImpl = ((input: string | URL | Request, init: RequestInit = {}) =>
    fetch(input, {
      ...init,
      headers: { ...Object.fromEntries(new Headers(init.headers).entries()), ...authHeader(tenant) },
    })) as typeof fetch;
  // the fetch adds the bearer key to every call, the card's read too
  return new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  }).createFromUrl(at);
}

const data = (value: unknown): Part => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});
const text = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const message = a2aMessage;
const send = (m: Message, configuration?: { returnImmediately?: boolean; push?: { url: string; token?: string } }) => ({
  tenant: '',
  message: m,
  configuration: configuration
    ? {
        acceptedOutputModes: [],
        returnImmediately: configuration.returnImmediately ?? false,
        historyLength: undefined,
        taskPushNotificationConfig: configuration.push
          ? {
              tenant: '',
              id: '',
              taskId: '',
              url: configuration.push.url,
              token: configuration.push.token ?? '',
              authentication: undefined,
            }
          : undefined,
      }
    : undefined,
  metadata: undefined,
});
const slowJob = (ms: number, n = 1) => ({
  pattern: 'fanout',
  tasks: Array.from({ length: n }, (_, i) => ({ id: `t${i}`, question: `slow ${i}`, agent: 'sim', params: { latencyMs: ms, steps: 2 } })),
});
const resultOf = (t: Task) =>
  t.artifacts[0]?.parts.find((p) => p.content?.$case === 'data')?.content?.value as { status: string; results: unknown[] };

describe('Delegate as an A2A agent', () => {
  it('serves an A2A 1.0 card anyone may read: JSON-RPC interface, streaming, push, bearer, five skills with examples', async () => {
    const res = await fetch(`${url}/.well-known/agent-card.json`);
    expect(res.status).toBe(200);
    const card = (await res.json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(card.supportedInterfaces).toEqual([{ url: `${url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true });
    expect(card.securitySchemes.bearerAuth.httpAuthSecurityScheme.scheme).toBe('bearer');
    expect(card.skills.map((s: { id: string }) => s.id)).toEqual(['fanout', 'pipeline', 'vote', 'research', 'scout']);
    for (const s of card.skills) expect(s.examples.length).toBeGreaterThan(0);
  });

  it('runs a job spec sent as a data part (SendMessage blocks until it is done) and the same messageId twice is one job', async () => {
    const client = await clientAs();
    const id = uniqueId('a2a-send');
    const spec = { pattern: 'fanout', tasks: [{ id: 'a', question: 'hello there', agent: 'echo' }] };
    const first = (await client.sendMessage(send(message(id, [data(spec)])))) as Task;
    expect(first.id).toBe(id);
    expect(first.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(resultOf(first)).toMatchObject({ status: 'success', results: [{ id: 'a', status: 'success' }] });
    const again = (await client.sendMessage(send(message(id, [data(spec)])))) as Task;
    expect(again.id).toBe(id);
    expect(await jobsListedWithId(id)).toBe(1);
    // the same messageId for another message is refused, not a second job
    await expect(client.sendMessage(send(message(id, [data({ ...spec, objective: 'another' })])))).rejects.toThrow(/already started/);
    // GetTask answers from the record as well
    const got = await client.getTask({ tenant: '', id });
    expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(got.artifacts[0]?.metadata).toMatchObject({ status: 'success', partial: false });
  });

  it('streams a job to its end: the task, a status update per durable event, the result artifact, the final status', async () => {
    const client = await clientAs();
    const id = uniqueId('a2a-stream');
    const events: StreamResponse[] = [];
    for await (const ev of client.sendMessageStream(send(message(id, [data(slowJob(100, 3))])))) events.push(ev);
    const kinds = events.map((e) => e.payload?.$case);
    expect(kinds[0]).toBe('task');
    expect(kinds.at(-2)).toBe('artifactUpdate');
    expect(kinds.at(-1)).toBe('statusUpdate');
    const last = events.at(-1)!.payload!.value as { status: { state: TaskState } };
    expect(last.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const finished = events.filter(
      (e) =>
        e.payload?.$case === 'statusUpdate' &&
        (e.payload.value.metadata as { delegate?: { type?: string } })?.delegate?.type === 'subtask.finished',
    );
    expect(finished).toHaveLength(3);
  });

  it('answers a plain text message as a research subtask, and rejects a refused spec with its field paths', async () => {
    const client = await clientAs();
    const rejected = (await client.sendMessage(
      send(message(uniqueId('a2a-bad'), [data({ pattern: 'fanout', tasks: [{ id: 'a', question: 'q', agent: 'no-such-agent' }] })])),
    )) as Task;
    expect(rejected.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    const detail = rejected.status?.message?.parts.find((p) => p.content?.$case === 'data')?.content?.value as {
      errors: { path: string }[];
    };
    expect(detail.errors[0]!.path).toBe('data.tasks[0].agent');
    const invalid = (await client.sendMessage(send(message(uniqueId('a2a-bad'), [data({ pattern: 'fanout', tasks: [] })])))) as Task;
    expect(invalid.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(JSON.stringify(invalid.status?.message?.parts)).toContain('message.parts[0].data.tasks');
    // a push config the address policy refuses: rejected at its own path
    const refusedPush = (await client.sendMessage(
      send(message(uniqueId('a2a-bad'), [data({ pattern: 'fanout', tasks: [{ id: 'a', question: 'q', agent: 'echo' }] })]), {
        push: { url: 'https://169.254.169.254/hook' },
      }),
    )) as Task;
    expect(refusedPush.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(JSON.stringify(refusedPush.status?.message?.parts)).toContain('configuration.taskPushNotificationConfig.url');
    // a text message: one research subtask (no agent named, routed as the contract routes it)
    const asked = (await client.sendMessage(
      send(message(uniqueId('a2a-text'), [text('count these words please')]), { returnImmediately: true }),
    )) as Task;
    expect([TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED]).toContain(asked.status?.state);
    const view = await app.inject({ url: `/v1/jobs/${asked.id}`, headers: authHeader() });
    expect(view.statusCode).toBe(200);
  });

  it('a text question about search is never sent to the code scout: run on an agent of capability "research" without a default, on the default with one', async () => {
    const question = 'Which vector databases support hybrid search?';
    // before: the scout (the only agent with "search" in its text) won the route, and the message was refused at params.paths;
    // then, refused at data.agent, a field a text message does not have (test/api/a2a-text-example.test.ts runs the guide's example)
    const ran = (await (await clientAs()).sendMessage(send(message(uniqueId('a2a-search'), [text(question)])))) as Task;
    expect(JSON.stringify(ran.status?.message?.parts ?? [])).not.toContain('params.paths');
    // the test agents share "search" only as a tool word: none reaches the semantic bar, so an agent of capability "research" runs it
    expect(ran.status?.state).not.toBe(TaskState.TASK_STATE_REJECTED);
    const ranOn = await app.inject({ url: `/v1/jobs/${ran.id}/result?waitSeconds=30`, headers: authHeader() });
    expect(ranOn.statusCode, ranOn.body).toBe(200);
    expect(['researcher', 'rogue-llm']).toContain(ranOn.json().results[0].agentId);
    // with the default configured: a job on the default agent, which its result says
    const withDefault = await listeningApp({ DELEGATE_RESEARCH_DEFAULT_AGENT: 'echo' }, null);
    try {
      const done = (await (
        await clientAs('default', withDefault.url)
      ).sendMessage(send(message(uniqueId('a2a-search'), [text(question)])))) as Task;
      expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      const res = await app.inject({ url: `/v1/jobs/${done.id}/result`, headers: authHeader() });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().results[0]).toMatchObject({
        status: 'success',
        agentId: 'echo',
        routing: { agent: 'echo', reason: 'research default (DELEGATE_RESEARCH_DEFAULT_AGENT)' },
      });
    } finally {
      await withDefault.app.close();
    }
  });

  it('lists tasks by context, cancels a running one, and subscribes to another mid-job', async () => {
    const client = await clientAs();
    const contextId = uniqueId('ctx');
    const slow = (await client.sendMessage(
      send(message(uniqueId('a2a-cancel'), [data(slowJob(20_000))], contextId), { returnImmediately: true }),
    )) as Task;
    expect(slow.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(slow.contextId).toBe(contextId);
    await pollUntil(
      async () =>
        (await client.listTasks({ tenant: '', contextId, status: 0, pageToken: '', statusTimestampAfter: undefined })).tasks.length === 1,
      'task listed',
    );
    const listed = await client.listTasks({ tenant: '', contextId, status: 0, pageToken: '', statusTimestampAfter: undefined });
    expect(listed.tasks.map((t) => [t.id, t.contextId])).toEqual([[slow.id, contextId]]);

    const sub = (await client.sendMessage(
      send(message(uniqueId('a2a-sub'), [data(slowJob(1000, 2))]), { returnImmediately: true }),
    )) as Task;
    const seen: StreamResponse[] = [];
    for await (const ev of client.resubscribeTask({ tenant: '', id: sub.id })) seen.push(ev);
    expect(seen[0]!.payload?.$case).toBe('task');
    expect((seen[0]!.payload!.value as Task).status?.state).toBe(TaskState.TASK_STATE_WORKING);
    // joined mid-job: the events from then on, the finishes among them
    expect(seen.filter((e) => e.payload?.$case === 'statusUpdate').length).toBeGreaterThan(1);
    expect((seen.at(-1)!.payload!.value as { status: { state: TaskState } }).status.state).toBe(TaskState.TASK_STATE_COMPLETED);

    const cancelled = await client.cancelTask({ tenant: '', id: slow.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(client.cancelTask({ tenant: '', id: slow.id, metadata: undefined })).rejects.toThrow(/finished/);
  });

  it("does not show one tenant's task to another (not found), and refuses a caller without a key", async () => {
    const client = await clientAs();
    const id = uniqueId('a2a-tenant');
    await client.sendMessage(send(message(id, [data({ pattern: 'fanout', tasks: [{ id: 'a', question: 'q', agent: 'echo' }] })])));
    const other = await clientAs('beta');
    await expect(other.getTask({ tenant: '', id })).rejects.toThrow(/not found|no task/i);
    await expect(other.cancelTask({ tenant: '', id, metadata: undefined })).rejects.toThrow(/not found|no task/i);
    const res = await fetch(`${url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id } }),
    });
    expect(res.status).toBe(401);
  });

  it('sends the final task as a push notification, signed with the tenant secret and carrying the config token', async () => {
    const client = await clientAs();
    const id = uniqueId('a2a-push');
    const token = 'push-token-123';
    await client.sendMessage(
      send(message(id, [data({ pattern: 'fanout', tasks: [{ id: 'a', question: 'q', agent: 'echo' }] })]), {
        push: { url: receiverUrl, token },
      }),
    );
    await pollUntil(async () => pushes.some((p) => p.headers['delegate-job-id'] === id), 'push received');
    const push = pushes.find((p) => p.headers['delegate-job-id'] === id)!;
    expect(push.headers['content-type']).toBe('application/a2a+json');
    expect(push.headers['x-a2a-notification-token']).toBe(token);
    const body = verifyForTenant(TEST_WEBHOOK_SECRET, 'default', push) as { task: unknown };
    expect(body.task).toMatchObject({ id, status: { state: 'TASK_STATE_COMPLETED' } });
  });
});

/** A message answering what task `taskId` waits on. */
const reply = (taskId: string, parts: Part[]): Message => ({ ...message(uniqueId('a2a-reply'), parts), taskId });
const statusOf = (ev: StreamResponse) => (ev.payload?.$case === 'statusUpdate' ? ev.payload.value : undefined);
const dataOf = (m: Message | undefined) => m?.parts.find((p) => p.content?.$case === 'data')?.content?.value as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const textOf = (m: Message | undefined) => m?.parts.find((p) => p.content?.$case === 'text')?.content?.value as string;

describe('input-required: the inbox over A2A', () => {
  it('a question: SendMessage comes back input-required with it; an answer its schema refuses keeps it pending with the field path; a data part answers it', async () => {
    const client = await clientAs();
    const id = uniqueId('a2a-ask');
    const contextId = uniqueId('ctx-ask');
    const answerSchema = { type: 'object', properties: { year: { type: 'integer' } }, required: ['year'] };
    const spec = {
      pattern: 'fanout',
      tasks: [
        { id: 't', question: 'when?', agent: 'sim', params: { steps: 2, echoHuman: true, ask: { question: 'Which year?', answerSchema } } },
      ],
    };
    // blocking: back as soon as the subtask asks, not after the 30 s wait
    const asked = (await client.sendMessage(send(message(id, [data(spec)], contextId)))) as Task;
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(asked.status?.message)).toBe('Which year?');
    const prompt = dataOf(asked.status?.message);
    expect(prompt).toMatchObject({ kind: 'question', taskId: 't', question: 'Which year?', answerSchema });
    const [item] = await app.inbox.list('default', { jobId: id, state: 'pending' });
    expect(prompt.id).toBe(item!.id);
    expect((await client.getTask({ tenant: '', id })).status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    await pollUntil(
      async () =>
        (
          await client.listTasks({
            tenant: '',
            contextId,
            status: TaskState.TASK_STATE_INPUT_REQUIRED,
            pageToken: '',
            statusTimestampAfter: undefined,
          })
        ).tasks.some((t) => t.id === id),
      'listed as input-required',
    );

    const bad = (await client.sendMessage(send(reply(id, [data({ year: 'soon' })])))) as Task;
    expect(bad.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(dataOf(bad.status?.message)).toMatchObject({
      id: item!.id,
      refused: { errors: [{ path: 'message.parts[0].data.year', message: 'must be integer' }] },
    });
    expect(textOf(bad.status?.message)).toContain('message.parts[0].data.year: must be integer');
    expect((await app.inbox.get('default', item!.id)).state).toBe('pending');

    // blocking again: the answer goes to the next step, and the job ends within the wait
    const done = (await client.sendMessage(send(reply(id, [data({ year: 2024 })])))) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(resultOf(done)).toMatchObject({ status: 'success', results: [{ id: 't', data: { answers: [{ year: 2024 }], messages: [] } }] });
    expect(await app.inbox.get('default', item!.id)).toMatchObject({ state: 'answered', decidedBy: 'a2a:default', answer: { year: 2024 } });
    await expect(client.sendMessage(send(reply(id, [text('again')])))).rejects.toThrow(/has finished/);
  });

  it('an approval: the stream goes input-required, a reply that is not approve/reject is refused, "approve" sends it back to working', async () => {
    const client = await clientAs();
    const id = uniqueId('a2a-approve');
    const spec = {
      pattern: 'fanout',
      tasks: [{ id: 't', question: 'needs a yes', agent: 'sim', params: { answer: 'ran' }, approval: { beforeStart: true } }],
    };
    const seen: StreamResponse[] = [];
    let answered = false;
    for await (const ev of client.sendMessageStream(send(message(id, [data(spec)])))) {
      seen.push(ev);
      // the update of the item's own event already asks (a stream that does not would wait here for a day)
      if ((statusOf(ev)?.metadata as { delegate?: { type?: string } })?.delegate?.type === 'approval.requested')
        expect(statusOf(ev)?.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      if (answered || statusOf(ev)?.status?.state !== TaskState.TASK_STATE_INPUT_REQUIRED) continue;
      answered = true;
      const prompt = statusOf(ev)!.status!.message;
      expect(dataOf(prompt)).toMatchObject({ kind: 'approval', reason: 'before_start', taskId: 't' });
      expect(textOf(prompt)).toMatch(/task "t" waits for approval before it starts: reply "approve" or "reject"/);
      const unclear = (await client.sendMessage(send(reply(id, [text('maybe')])))) as Task;
      expect(unclear.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(dataOf(unclear.status?.message)?.refused?.errors).toEqual([
        { path: 'message.parts[0].text', message: 'send "approve" or "reject" (or a data part { decision })' },
      ]);
      const approved = (await client.sendMessage(send(reply(id, [text('Approve')]), { returnImmediately: true }))) as Task;
      expect(approved.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    }
    const states = seen.map((e) => statusOf(e)?.status?.state);
    const asked = states.indexOf(TaskState.TASK_STATE_INPUT_REQUIRED);
    const decided = seen.findIndex(
      (e) => (statusOf(e)?.metadata as { delegate?: { type?: string } })?.delegate?.type === 'approval.decided',
    );
    expect(asked).toBeGreaterThan(0);
    expect(decided).toBeGreaterThan(asked);
    // every update while it waits is input-required; the decision sends it back to working
    expect(states.slice(asked, decided).every((s) => s === TaskState.TASK_STATE_INPUT_REQUIRED)).toBe(true);
    expect(states[decided]).toBe(TaskState.TASK_STATE_WORKING);
    expect(textOf(statusOf(seen[decided]!)!.status!.message)).toMatch(/approval .* approved by a2a:default/);
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    const final = await client.getTask({ tenant: '', id });
    expect(resultOf(final)).toMatchObject({ status: 'success', results: [{ id: 't', data: 'ran' }] });
  });

  it('SubscribeToTask mid-wait starts input-required; a text reply answers the question; another tenant cannot; a task that waits on nothing refuses a reply', async () => {
    const client = await clientAs();
    const id = uniqueId('a2a-text');
    const spec = {
      pattern: 'fanout',
      tasks: [{ id: 't', question: 'colour?', agent: 'sim', params: { steps: 2, echoHuman: true, ask: { question: 'Which colour?' } } }],
    };
    await client.sendMessage(send(message(id, [data(spec)]), { returnImmediately: true }));
    await pollUntil(
      async () => (await client.getTask({ tenant: '', id })).status?.state === TaskState.TASK_STATE_INPUT_REQUIRED,
      'the task asks',
    );
    const other = await clientAs('beta');
    await expect(other.sendMessage(send(reply(id, [text('red')])))).rejects.toThrow(/not found|no task/i);

    const seen: StreamResponse[] = [];
    for await (const ev of client.resubscribeTask({ tenant: '', id })) {
      seen.push(ev);
      if (seen.length !== 1) continue;
      expect((ev.payload!.value as Task).status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const answered: StreamResponse[] = [];
      for await (const a of client.sendMessageStream(send(reply(id, [text('blue')])))) answered.push(a);
      expect(answered[0]!.payload?.$case).toBe('task');
      expect((answered.at(-1)!.payload!.value as { status: { state: TaskState } }).status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    }
    const states = seen.map((e) => (e.payload?.$case === 'task' ? e.payload.value.status?.state : statusOf(e)?.status?.state));
    expect(states[0]).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(states).toContain(TaskState.TASK_STATE_WORKING);
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(resultOf(await client.getTask({ tenant: '', id })).results[0]).toMatchObject({ data: { answers: ['blue'] } });

    const busy = (await client.sendMessage(
      send(message(uniqueId('a2a-busy'), [data(slowJob(20_000))]), { returnImmediately: true }),
    )) as Task;
    await expect(client.sendMessage(send(reply(busy.id, [text('hello?')])))).rejects.toThrow(/waits on no input/);
    await client.cancelTask({ tenant: '', id: busy.id, metadata: undefined });
  });
});
