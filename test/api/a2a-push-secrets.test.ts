/**
 * A2A push configs hold the receiver's secrets (the token, a URL that may carry one in its query): they
 * stay in the record, out of the Temporal histories of the job and of its webhook delivery, and the push
 * still arrives with them.
 */
import { type Part } from '@a2a-js/sdk';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { FastifyInstance } from 'fastify';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { listeningApp, pollUntil, testClient, uniqueId } from '../helpers';
import { authHeader } from '../tenants';
import { TEST_WEBHOOK_SECRET } from '../webhook-secret';
import { a2aMessage } from '../a2a-fixtures';

let app: FastifyInstance;
let url: string;
let receiver: Server;
let receiverUrl: string;
const pushes: { url: string; headers: IncomingMessage['headers'] }[] = [];

beforeAll(async () => {
  ({ app, url } = await listeningApp({ DELEGATE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET }, null));
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      pushes.push({ url: req.url ?? '', headers: req.headers });
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

/** A history as JSON with every payload's data decoded: what anyone who may read the history reads. */
async function historyText(workflowId: string): Promise<string> {
  const history = await (await testClient()).workflow.getHandle(workflowId).fetchHistory();
  const json = historyToJSON(history);
  return json.replace(
    /"data":\s*"([A-Za-z0-9+/=]*)"/g,
    (_, b64: string) => `"data":${JSON.stringify(Buffer.from(b64, 'base64').toString('utf8'))}`,
  );
}

const hits = (text: string, needle: string) => text.split(needle).length - 1;

/** Occurrences of `needle` in the test server's own SQLite files (histories, visibility), the WAL included. */
function serverFileHits(needle: string): number {
  const db = join(inject('runDir'), 'temporal.sqlite');
  return ['', '-wal'].map((s) => db + s).reduce((n, f) => n + (existsSync(f) ? hits(readFileSync(f).toString('latin1'), needle) : 0), 0);
}

describe('A2A push secrets', () => {
  it('keeps the push token and the receiver URL out of the workflow histories, and the push still arrives with them', async () => {
    const fetchImpl = ((input: string | URL | Request, init: RequestInit = {}) =>
      fetch(input, {
        ...init,
        headers: { ...Object.fromEntries(new Headers(init.headers).entries()), ...authHeader('default') },
      })) as typeof fetch;
    const client = await new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }).createFromUrl(url);
    const id = uniqueId('a2a-push-secret');
    const token = `tok-${id}`;
    const querySecret = `qs-${id}`;
    const data: Part = {
      content: { $case: 'data', value: { pattern: 'fanout', tasks: [{ id: 'a', question: 'q', agent: 'echo' }] } },
      metadata: undefined,
      filename: '',
      mediaType: 'application/json',
    };
    await client.sendMessage({
      tenant: '',
      message: a2aMessage(id, [data]),
      configuration: {
        acceptedOutputModes: [],
        returnImmediately: false,
        historyLength: undefined,
        taskPushNotificationConfig: {
          tenant: '',
          id: '',
          taskId: '',
          url: `${receiverUrl}?key=${querySecret}`,
          token,
          authentication: undefined,
        },
      },
      metadata: undefined,
    });
    await pollUntil(async () => pushes.some((p) => p.headers['delegate-job-id'] === id), 'push received');
    const push = pushes.find((p) => p.headers['delegate-job-id'] === id)!;
    expect(push.headers['x-a2a-notification-token']).toBe(token);
    expect(push.url).toBe(`/a2a-push?key=${querySecret}`);

    const workflowId = app.jobs.workflowIdOf('default', id);
    const job = await historyText(workflowId);
    const delivery = await historyText(`${workflowId}/~webhook`);
    // the histories are what they are said to be: the job's id is in both
    expect(hits(job, id)).toBeGreaterThan(0);
    expect(hits(delivery, id)).toBeGreaterThan(0);
    const found = {
      tokenInJob: hits(job, token),
      tokenInDelivery: hits(delivery, token),
      urlInJob: hits(job, querySecret),
      urlInDelivery: hits(delivery, querySecret),
      tokenInServerFiles: serverFileHits(token),
      urlInServerFiles: serverFileHits(querySecret),
    };
    console.log(`push secrets in Temporal: ${JSON.stringify(found)}`);
    expect(found).toEqual({ tokenInJob: 0, tokenInDelivery: 0, urlInJob: 0, urlInDelivery: 0, tokenInServerFiles: 0, urlInServerFiles: 0 });
  });
});
