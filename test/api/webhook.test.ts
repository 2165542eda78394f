import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhook, webhookSecretFor } from '../../activities';
import { appForTest, jobsStartedWithId, uniqueId, useApp } from '../helpers';
import { authHeader } from '../tenants';
import { TEST_WEBHOOK_SECRET } from '../webhook-secret';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  answered: number;
}

const app = useApp({ DELEGATE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET });
let receiver: Server;
let base: string;
const received = new Map<string, Received[]>();
/** Status codes the receiver answers per path, in order (then 200). */
const script = new Map<string, number[]>();

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const answered = script.get(path)?.shift() ?? 200;
      received.set(path, [...(received.get(path) ?? []), { headers: req.headers, body, answered }]);
      res.writeHead(answered).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => receiver?.close(r));
});

async function deliveries(path: string, n: number): Promise<Received[]> {
  const deadline = Date.now() + 30_000;
  while ((received.get(path)?.length ?? 0) < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  return received.get(path) ?? [];
}

describe('completion webhooks', () => {
  it("posts the JobResult to callbackUrl, naming the tenant, signed with the tenant's own HMAC-SHA256 key", async () => {
    const jobId = uniqueId('hook');
    const path = `/hook/${jobId}`;
    const submit = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: { jobId, pattern: 'fanout', callbackUrl: `${base}${path}`, tasks: [{ id: 'a', question: 'ping', agent: 'echo' }] },
    });
    expect(submit.statusCode).toBe(201);
    const [hit] = await deliveries(path, 1);
    expect(hit).toBeDefined();
    const payload = JSON.parse(hit.body);
    expect(payload).toMatchObject({ type: 'job.completed', jobId, status: 'success', result: { jobId, output: { a: 'ping' } } });
    // signed with the submitting tenant's own secret, derived from the worker's master key
    expect(payload.tenant).toEqual(expect.any(String));
    const signature = String(hit.headers['delegate-signature']);
    const t = Number(/t=(\d+)/.exec(signature)?.[1]);
    expect(signature).toBe(signWebhook(webhookSecretFor(TEST_WEBHOOK_SECRET, payload.tenant), t, hit.body));
    expect(signature).not.toBe(signWebhook(webhookSecretFor(TEST_WEBHOOK_SECRET, `${payload.tenant}-other`), t, hit.body));
    expect(signature).not.toBe(signWebhook(TEST_WEBHOOK_SECRET, t, hit.body));
    // the tenant reads its own secret from the API, and it is the one that verifies
    expect(payload.tenant).toBe('default');
    const mine = await app.inject({ method: 'GET', url: '/v1/webhooks/secret' });
    expect(mine.json()).toEqual({ tenant: 'default', secret: webhookSecretFor(TEST_WEBHOOK_SECRET, 'default') });
    const theirs = await app.inject({ method: 'GET', url: '/v1/webhooks/secret', headers: authHeader('beta') });
    expect(theirs.json().secret).not.toBe(mine.json().secret);
    expect(signature).not.toBe(signWebhook(theirs.json().secret, t, hit.body));
  });

  it('refuses at submission a callbackUrl that is not https, or aims at a private or metadata address', async () => {
    const strict = await appForTest({ DELEGATE_WEBHOOK_ALLOW_LOOPBACK: 'false' });
    for (const url of [
      'http://example.com/hook',
      'https://169.254.169.254/latest',
      'https://10.0.0.8/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://metadata.google.internal/x',
      `${base}/x`,
    ]) {
      const jobId = uniqueId('hookbad');
      const res = await strict.inject({
        method: 'POST',
        url: '/v1/jobs',
        payload: { jobId, pattern: 'fanout', callbackUrl: url, tasks: [{ id: 'a', question: 'q', agent: 'echo' }] },
      });
      expect([400, 422], url).toContain(res.statusCode);
      expect(res.json().errors[0].path, url).toBe('body.callbackUrl');
      expect(await jobsStartedWithId(jobId)).toBe(0);
    }
  });

  it('retries a receiver that fails, and never loses the result when delivery is refused', async () => {
    const jobId = uniqueId('hookretry');
    const path = `/retry/${jobId}`;
    script.set(path, [503, 500]);
    await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: { jobId, pattern: 'fanout', callbackUrl: `${base}${path}`, tasks: [{ id: 'a', question: 'q', agent: 'echo' }] },
    });
    const hits = await deliveries(path, 3);
    expect(hits.map((h) => h.answered)).toEqual([503, 500, 200]);

    const refused = uniqueId('hookgone');
    script.set(`/gone/${refused}`, [410]);
    await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: {
        jobId: refused,
        pattern: 'fanout',
        callbackUrl: `${base}/gone/${refused}`,
        tasks: [{ id: 'a', question: 'q', agent: 'echo' }],
      },
    });
    const res = await app.inject({ method: 'GET', url: `/v1/jobs/${refused}/result?waitSeconds=30` });
    expect(res.statusCode).toBe(200);
    expect(res.json().status).toBe('success');
    expect((await deliveries(`/gone/${refused}`, 1)).map((h) => h.answered)).toEqual([410]);
  });
});
