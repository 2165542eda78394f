/**
 * Approval token URLs from the attacker's side: whoever reads the API's log lines, its traces or
 * its metrics must find no token there, since a token decides its item without a key. The
 * token's requests as they come (shown, a typo'd copy, one percent-encoded, the decision) go
 * through an app whose log lines, spans and /metrics are captured.
 */
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import type { FastifyInstance } from 'fastify';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadRegistry } from '../../activities';
import { buildApp } from '../../api/app';
import { loggedUrl } from '../../api/request-log';
import { loadTenants } from '../../config/tenants';
import type { InboxItem } from '../../schemas';
import { createLogger } from '../../telemetry/logging';
import { startTracing, type Tracing } from '../../telemetry/tracing';
import { pollUntil, testClient, testConfig, testRecord, uniqueId } from '../helpers';
import { authHeader } from '../tenants';

const lines: string[] = [];
const exporter = new InMemorySpanExporter();
let tracing: Tracing;
let app: FastifyInstance;

beforeAll(async () => {
  tracing = startTracing({ serviceName: 'delegate-test', exporter })!;
  const destination = new Writable({ write: (chunk, _enc, done) => (lines.push(...String(chunk).split('\n').filter(Boolean)), done()) });
  const config = testConfig({ DELEGATE_APPROVAL_SECRET: 'approval-secret-for-tests-0123456789', PUBLIC_URL: 'http://delegate.test' });
  app = await buildApp({
    config,
    client: await testClient(),
    registry: loadRegistry(inject('agentsFile')),
    tenants: loadTenants(config),
    record: await testRecord(),
    fastify: { loggerInstance: createLogger({ level: 'info', proc: 'api', destination }) },
    tracing: true,
  });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await tracing?.shutdown();
});

/** A pending approval's token, as its job's inbox item carries it. */
async function pendingToken(): Promise<string> {
  const jobId = uniqueId('token-leak');
  const submitted = await app.inject({
    method: 'POST',
    url: '/v1/jobs',
    headers: authHeader('default'),
    payload: { jobId, pattern: 'fanout', tasks: [{ id: 't', question: 'q', agent: 'sim', approval: { beforeStart: true } }] },
  });
  expect(submitted.statusCode, submitted.body).toBe(201);
  let item: InboxItem | undefined;
  await pollUntil(async () => {
    const res = await app.inject({ method: 'GET', url: `/v1/approvals?jobId=${jobId}`, headers: authHeader('default') });
    item = (res.json() as { items: InboxItem[] }).items[0];
    return item !== undefined;
  }, `job ${jobId} opened no inbox item`);
  return new URL(item!.tokenUrl!).pathname.split('/').pop()!;
}

describe('approval token URLs', () => {
  it('reach no log line, span or metric label, whatever form the path comes in', async () => {
    const token = await pendingToken();
    const signature = token.slice(token.indexOf('.') + 1);
    const anonymous = { authorization: '' };
    const at = (path: string) => ({ method: 'GET' as const, url: path, headers: anonymous });
    expect((await app.inject(at(`/v1/approvals/token/${token}`))).statusCode).toBe(200);
    expect((await app.inject(at(`/v1/approvals/token/${token}?from=mail`))).statusCode).toBe(200);
    // a copy with a stray segment matches no route: the token is as valid as ever
    expect((await app.inject(at(`/v1/approvals/token/${token}/x`))).statusCode).toBe(404);
    // pasted where an item id goes
    expect((await app.inject({ ...at(`/v1/approvals/${token}`), headers: authHeader('default') })).statusCode).toBe(400);
    // the router decodes the path to the token's route, but it is not the public path as sent: a key is asked for
    expect((await app.inject(at(`/v1/approvals/%74oken/${token}`))).statusCode).toBe(401);
    const decided = await app.inject({
      method: 'POST',
      url: `/v1/approvals/token/${token}`,
      payload: { decision: 'approve' },
      headers: anonymous,
    });
    expect(decided.statusCode, decided.body).toBe(200);
    const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    await tracing.flush();

    const spans = exporter.getFinishedSpans();
    const leaks = {
      logLines: lines.filter((l) => l.includes(signature)).length,
      spans: spans.filter((s) => JSON.stringify([s.name, s.attributes]).includes(signature)).length,
      metricLines: metrics.split('\n').filter((l) => l.includes(signature)).length,
    };
    expect(leaks).toEqual({ logLines: 0, spans: 0, metricLines: 0 });

    // what they keep instead: the path with the token's segment redacted
    const urls = lines.map((l) => JSON.parse(l) as { req?: { url: string } }).flatMap((l) => (l.req ? [l.req.url] : []));
    expect(urls).toEqual(expect.arrayContaining(['/v1/approvals/token/[redacted]', '/v1/approvals/token/[redacted]?from=mail']));
    const paths = spans.map((s) => s.attributes['url.path']).filter((p) => String(p).includes('/approvals/'));
    expect(paths).toContain('/v1/approvals/token/[redacted]');
    expect(metrics).toMatch(/route="\/v1\/approvals\/token\/:token"/);
  });

  it('loggedUrl: the token segment redacted in any spelling of the path, other paths untouched', () => {
    expect(loggedUrl('/v1/approvals/token/abc.def')).toBe('/v1/approvals/token/[redacted]');
    expect(loggedUrl('/v1/approvals/token/abc.def/x?limit=5')).toBe('/v1/approvals/token/[redacted]/x?limit=5');
    // spelled otherwise, the path is kept as the router reads it
    expect(loggedUrl('/v1/approvals/%74oken/abc.def')).toBe('/v1/approvals/token/[redacted]');
    expect(loggedUrl('/v1/%61pprovals/TOKEN/abc.def')).toBe('/v1/approvals/TOKEN/[redacted]');
    expect(loggedUrl('/v1/approvals//token//abc.def')).toBe('/v1/approvals//token//[redacted]');
    expect(loggedUrl('/v1/approvals%2Ftoken%2Fabc.def')).toBe('/v1/approvals/token/[redacted]');
    // a token's shape on any other path
    const token = `eyJ0IjoiZGVmYXVsdCJ9.${'Qm9v'.repeat(10)}abc`;
    expect(loggedUrl(`/v1/approvals/${token}`)).toBe('/v1/approvals/[redacted]');
    expect(loggedUrl(`/v1/jobs/x/%65${token.slice(1)}`)).toBe('/v1/jobs/x/[redacted]');
    expect(loggedUrl('/v1/approvals/token/')).toBe('/v1/approvals/token/');
    expect(loggedUrl('/v1/jobs/a%20b')).toBe('/v1/jobs/a%20b');
    expect(loggedUrl('/v1/approvals/abc')).toBe('/v1/approvals/abc');
    expect(loggedUrl('/v1/jobs/token/abc')).toBe('/v1/jobs/token/abc');
  });
});
