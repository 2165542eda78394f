import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookVerificationError } from 'standardwebhooks';
import { legacyWebhookSecretFor, webhookSecretFor } from '../../activities';
import { appForTest, jobsStartedWithId, uniqueId, useApp } from '../helpers';
import { authHeader } from '../tenants';
import { TEST_WEBHOOK_SECRET, verifyWithLibrary } from '../webhook-secret';

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
  it("posts the JobResult to callbackUrl, naming the tenant, signed per Standard Webhooks with the tenant's own secret", async () => {
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
    // the tenant reads its own whsec_ secret from the API, and the standardwebhooks library verifies the delivery with it
    expect(payload.tenant).toBe('default');
    const mine = await app.inject({ method: 'GET', url: '/v1/webhooks/secret' });
    expect(mine.json()).toEqual({ tenant: 'default', scheme: 'standard', secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) });
    expect(verifyWithLibrary(mine.json().secret, hit)).toEqual(payload);
    expect(hit.headers['webhook-id']).toMatch(/^msg_/);
    expect(hit.headers['delegate-signature']).toBeUndefined();
    // another tenant's secret and the master key do not verify it
    const theirs = await app.inject({ method: 'GET', url: '/v1/webhooks/secret', headers: authHeader('beta') });
    expect(theirs.json().secret).not.toBe(mine.json().secret);
    expect(() => verifyWithLibrary(theirs.json().secret, hit)).toThrow(WebhookVerificationError);
    expect(() => verifyWithLibrary(`whsec_${Buffer.from(TEST_WEBHOOK_SECRET).toString('base64')}`, hit)).toThrow(WebhookVerificationError);
  });

  it('under DELEGATE_WEBHOOK_SIGNATURE=legacy the secret endpoint answers the hex secret as before, and the whsec_ one beside it', async () => {
    const legacy = await appForTest({ DELEGATE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET, DELEGATE_WEBHOOK_SIGNATURE: 'legacy' });
    const res = await legacy.inject({ method: 'GET', url: '/v1/webhooks/secret' });
    expect(res.json()).toEqual({
      tenant: 'default',
      scheme: 'legacy',
      secret: legacyWebhookSecretFor(TEST_WEBHOOK_SECRET, 'default'),
      standardSecret: webhookSecretFor(TEST_WEBHOOK_SECRET, 'default'),
    });
    expect(res.json().secret).toMatch(/^[0-9a-f]{64}$/);
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
    // every attempt is signed afresh and carries the same webhook-id, for the receiver to deduplicate on
    expect(new Set(hits.map((h) => h.headers['webhook-id'])).size).toBe(1);
    const secret = webhookSecretFor(TEST_WEBHOOK_SECRET, 'default');
    for (const h of hits) expect(verifyWithLibrary(secret, h)).toMatchObject({ jobId });

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
