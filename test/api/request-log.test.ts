/** The API's request lines from the attacker's (or the careless caller's) side: a key put in a URL never reaches the log. */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../api/app';
import { loggedUrl } from '../../api/request-log';
import { loadRegistry } from '../../activities';
import { createLogger } from '../../telemetry/logging';
import { loadTenants } from '../../config/tenants';
import { testClient, testConfig, testRecord } from '../helpers';
import { authHeader } from '../tenants';
import { inject } from 'vitest';

describe('request log lines', () => {
  it('keep the path and the query keys, not the values of a key sent in the URL', async () => {
    const raw: string[] = [];
    const destination = new Writable({ write: (chunk, _enc, done) => (raw.push(...String(chunk).split('\n').filter(Boolean)), done()) });
    const config = testConfig();
    const app = await buildApp({
      config,
      client: await testClient(),
      registry: loadRegistry(inject('agentsFile')),
      tenants: loadTenants(config),
      record: await testRecord(),
      fastify: { loggerInstance: createLogger({ level: 'info', proc: 'api', destination }) },
    });
    try {
      const secret = 'dlg_live_9f8e7d6c5b4a39281706f5e4d3c2b1a0';
      await app.inject({ method: 'GET', url: `/v1/jobs?status=running&api_key=${secret}&token=${secret}`, headers: authHeader('default') });
      await app.inject({ method: 'GET', url: `/v1/agents?${secret}`, headers: authHeader('default') });
      expect(raw.join('\n')).not.toContain(secret);
      const urls = raw.map((l) => JSON.parse(l) as { req?: { url: string } }).flatMap((l) => (l.req ? [l.req.url] : []));
      expect(urls).toContain('/v1/jobs?status=running&api_key=[redacted]&token=[redacted]');
    } finally {
      await app.close();
    }
  });

  it('loggedUrl: harmless API parameters as sent, anything else redacted, a path alone untouched', () => {
    expect(loggedUrl('/v1/jobs/abc')).toBe('/v1/jobs/abc');
    expect(loggedUrl('/v1/jobs/abc/result?waitSeconds=30')).toBe('/v1/jobs/abc/result?waitSeconds=30');
    expect(loggedUrl('/x?access_token=s3cret&pageSize=5&%73tatus=x')).toBe('/x?access_token=[redacted]&pageSize=5&%73tatus=x');
    expect(loggedUrl(`/x?status=${'a'.repeat(65)}`)).toBe('/x?status=[redacted]');
    expect(loggedUrl('/x?%E0%A4%A=1')).toBe('/x?%E0%A4%A=[redacted]');
  });
});
