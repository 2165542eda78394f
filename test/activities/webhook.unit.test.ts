import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import {
  legacyWebhookSecretFor,
  signatureHeaders,
  signLegacyWebhook,
  webhookIdFor,
  webhookSecretFor,
  type ResolvedAddress,
} from '../../activities';
import { DestinationRefusedError, guardedPost } from '../../activities/guarded-post';

// every test's traffic stays on loopback: names map to addresses through a stub resolver
let receiver: Server;
let port: number;
const hits: { url: string; headers: IncomingHttpHeaders }[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    hits.push({ url: req.url ?? '', headers: req.headers });
    req.resume().on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  port = (receiver.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((r) => receiver?.close(r));
});

/** A resolver that knows only `table` and records what it was asked. */
function stubResolver(table: Record<string, string[]>) {
  const asked: string[] = [];
  const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    asked.push(hostname);
    return (table[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { resolve, asked };
}

const post = (url: string, opts: Partial<Parameters<typeof guardedPost>[1]>) =>
  guardedPost(url, { body: '{}', headers: { 'content-type': 'application/json' }, policy: {}, signal: AbortSignal.timeout(5000), ...opts });

describe('webhook delivery target checks (connect time)', () => {
  it('connects to a name whose every address is allowed (the control: the receiver is reachable)', async () => {
    const { resolve, asked } = stubResolver({ 'hooks.test': ['127.0.0.1'] });
    const before = hits.length;
    expect(await post(`http://hooks.test:${port}/ok?token=x`, { policy: { allowLoopback: true }, resolve })).toBe(204);
    expect(asked).toEqual(['hooks.test']);
    expect(hits.length).toBe(before + 1);
    expect(hits.at(-1)).toMatchObject({ url: '/ok?token=x', headers: { host: `hooks.test:${port}` } });
  });

  it('refuses a name that resolves to loopback when loopback is not allowed: nothing connects', async () => {
    const { resolve, asked } = stubResolver({ 'rebind.test': ['127.0.0.1'] });
    const before = hits.length;
    await expect(post(`https://rebind.test:${port}/x`, { resolve })).rejects.toThrow(/refused: a loopback address/);
    await expect(post(`https://rebind.test:${port}/x`, { resolve })).rejects.toBeInstanceOf(DestinationRefusedError);
    expect(asked.length).toBe(2); // resolved when connecting, not only when parsing
    expect(hits.length).toBe(before);
  });

  it('refuses when any resolved address is private, link-local, CGNAT or metadata, even beside an allowed one', async () => {
    // the allowed loopback address comes first: a check of only the first address would connect to our receiver
    for (const [bad, why] of [
      ['169.254.169.254', 'metadata'],
      ['10.0.0.7', 'private'],
      ['192.168.1.2', 'private'],
      ['169.254.3.4', 'link-local'],
      ['100.64.1.1', 'cgnat'],
      ['fd00:ec2::254', 'metadata'],
      ['::ffff:169.254.169.254', 'metadata'],
      ['fe80::1', 'link-local'],
      ['0.0.0.0', 'unspecified'],
    ]) {
      const { resolve } = stubResolver({ 'mixed.test': ['127.0.0.1', bad] });
      const before = hits.length;
      await expect(post(`http://mixed.test:${port}/x`, { policy: { allowLoopback: true }, resolve }), bad).rejects.toThrow(new RegExp(why));
      expect(hits.length, bad).toBe(before);
    }
  });

  it('refuses literal addresses and metadata names without asking the resolver', async () => {
    const { resolve, asked } = stubResolver({});
    await expect(post(`http://127.0.0.1:${port}/x`, { resolve })).rejects.toThrow(/not https|loopback/);
    await expect(post(`https://[::ffff:127.0.0.1]:${port}/x`, { resolve })).rejects.toThrow(/loopback/);
    await expect(post('https://169.254.169.254/latest/meta-data/', { resolve })).rejects.toThrow(/metadata/);
    await expect(post('https://metadata.google.internal/computeMetadata/v1/', { resolve })).rejects.toThrow(/metadata host/);
    await expect(post(`https://localhost:${port}/x`, { resolve })).rejects.toThrow(/loopback host/);
    await expect(
      post('http://hooks.example.com/x', { resolve: stubResolver({ 'hooks.example.com': ['93.184.215.14'] }).resolve }),
    ).rejects.toThrow(/not https/);
    expect(asked).toEqual([]);
  });

  it('refuses a name that does not resolve', async () => {
    await expect(post(`https://nowhere.test:${port}/x`, { resolve: stubResolver({}).resolve })).rejects.toThrow(/no address/);
  });
});

describe('webhook signatures (Standard Webhooks)', () => {
  const master = 'master-secret-0123456789';
  const body = JSON.stringify({ type: 'job.completed', tenant: 'tenant-b', jobId: 'j' });
  const signed = (over: Partial<Parameters<typeof signatureHeaders>[0]> = {}) => ({
    body,
    headers: signatureHeaders({
      master,
      signature: 'standard',
      tenant: 'tenant-b',
      workflowId: 'job/tenant-b/j',
      body,
      now: new Date(),
      ...over,
    }),
  });

  it("verifies with the standardwebhooks library and the tenant's whsec_ secret; not with another tenant's, nor once altered", () => {
    const hit = signed();
    expect(webhookSecretFor(master, 'tenant-b')).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(webhookSecretFor(master, 'tenant-b')).verify(hit.body, hit.headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(webhookSecretFor(master, 'tenant-a')).verify(hit.body, hit.headers)).toThrow(WebhookVerificationError);
    expect(() => new Webhook(webhookSecretFor('another-master-0123456789', 'tenant-b')).verify(hit.body, hit.headers)).toThrow(
      WebhookVerificationError,
    );
    expect(() => new Webhook(webhookSecretFor(master, 'tenant-b')).verify(body.replace('"j"', '"k"'), hit.headers)).toThrow(
      WebhookVerificationError,
    );
    // an attempt signed long ago is refused by the library's timestamp check
    const stale = signed({ now: new Date(Date.now() - 3_600_000) });
    expect(() => new Webhook(webhookSecretFor(master, 'tenant-b')).verify(stale.body, stale.headers)).toThrow(/timestamp/i);
    expect(hit.headers['delegate-signature']).toBeUndefined();
  });

  it('gives every attempt of one delivery the same webhook-id, and each job its own', () => {
    const first = signed({ now: new Date(Date.now() - 60_000) }).headers;
    const retry = signed().headers;
    expect(first['webhook-id']).toBe(retry['webhook-id']);
    expect(first['webhook-timestamp']).not.toBe(retry['webhook-timestamp']);
    expect(signed({ workflowId: 'job/tenant-b/k' }).headers['webhook-id']).not.toBe(retry['webhook-id']);
    expect(retry['webhook-id']).toBe(webhookIdFor('job/tenant-b/j'));
  });

  it('adds the deprecated delegate-signature under legacy, with the hex secret receivers had', () => {
    const now = new Date(1_700_000_000_000);
    const { headers } = signed({ signature: 'legacy', now });
    const hex = legacyWebhookSecretFor(master, 'tenant-b');
    expect(hex).toMatch(/^[0-9a-f]{64}$/);
    expect(Buffer.from(hex, 'hex').toString('base64')).toBe(webhookSecretFor(master, 'tenant-b').slice('whsec_'.length));
    expect(headers['delegate-signature']).toBe(signLegacyWebhook(hex, 1_700_000_000, body));
    expect(headers['delegate-signature']).not.toBe(signLegacyWebhook(legacyWebhookSecretFor(master, 'tenant-a'), 1_700_000_000, body));
    // the Standard Webhooks headers ride along, so receivers can move one at a time
    expect(headers['webhook-signature']).toBe(signed({ now }).headers['webhook-signature']);
  });
});
