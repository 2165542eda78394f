import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/config';
import { hashKey, loadTenants } from '../../config/tenants';
import { agentQueueFor } from '../../core/names';

const keysFile = (content: unknown) => {
  const path = join(mkdtempSync(join(tmpdir(), 'delegate-keys-')), 'keys.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
};

describe('tenants: keys decide the tenant', () => {
  it('reads tenant=key pairs and answers the tenant of a key, never of a wrong one', () => {
    const t = loadTenants(loadConfig({ DELEGATE_API_KEYS: 'acme=acme-key-0123456789ab, beta=beta-key-0123456789ab' }));
    expect(t.auth).toBe('on');
    expect(t.authenticate('acme-key-0123456789ab')).toBe('acme');
    expect(t.authenticate('beta-key-0123456789ab')).toBe('beta');
    expect(t.authenticate('acme-key-0123456789a')).toBeUndefined();
    expect(t.authenticate('')).toBeUndefined();
    expect(t.list().map((p) => p.tenant)).toEqual(['acme', 'beta']);
    expect(t.get('acme')?.quotas).toEqual({
      requestsPerMinute: 600,
      runningJobs: 50,
      tasksPerJob: 10_000,
      agentSlots: 50,
      fairnessWeight: 1,
    });
  });

  it('reads hashed keys and per-tenant quotas from the keys file, over the defaults', () => {
    const path = keysFile({
      tenants: [{ tenant: 'acme', keySha256: [hashKey('file-key-0123456789ab')], quotas: { runningJobs: 3, agentSlots: 7 } }],
    });
    const t = loadTenants(loadConfig({ DELEGATE_API_KEYS_FILE: path, DELEGATE_QUOTA_REQUESTS_PER_MINUTE: '100' }));
    expect(t.authenticate('file-key-0123456789ab')).toBe('acme');
    expect(t.get('acme')?.quotas).toEqual({
      requestsPerMinute: 100,
      runningJobs: 3,
      tasksPerJob: 10_000,
      agentSlots: 7,
      fairnessWeight: 1,
    });
  });

  it('refuses bad keys and files, naming the variable and never echoing a key', () => {
    const load = (env: Record<string, string>) => () => loadTenants(loadConfig(env));
    expect(load({ DELEGATE_API_KEYS: 'acme=short' })).toThrow(/DELEGATE_API_KEYS: the key of tenant "acme" is shorter than 16/);
    expect(load({ DELEGATE_API_KEYS: 'Acme!=acme-key-0123456789ab' })).toThrow(/DELEGATE_API_KEYS: pair 1 has an invalid tenant id/);
    expect(load({ DELEGATE_API_KEYS: 'acme=clé-0123456789abcdefgh' })).toThrow(/outside printable ASCII/);
    expect(load({ DELEGATE_API_KEYS: 'acme=same-key-0123456789ab,beta=same-key-0123456789ab' })).toThrow(/also a key of tenant "acme"/);
    expect(load({ DELEGATE_API_KEYS_FILE: keysFile({ tenants: [{ tenant: 'acme', keySha256: ['nothex'] }] }) })).toThrow(
      /invalid DELEGATE_API_KEYS_FILE .*keySha256/s,
    );
    expect(load({ DELEGATE_API_KEYS_FILE: keysFile('{not json') })).toThrow(/cannot read DELEGATE_API_KEYS_FILE/);
    const message = (() => {
      try {
        load({ DELEGATE_API_KEYS: 'acme=secret-short' })();
        return '';
      } catch (err) {
        return String(err);
      }
    })();
    expect(message).toMatch(/shorter than 16/);
    expect(message).not.toContain('secret-short');
  });

  it('with auth off, everyone is tenant "default"; a lane per tenant', () => {
    const t = loadTenants(loadConfig({ DELEGATE_AUTH: 'off' }));
    expect(t.auth).toBe('off');
    expect(t.authenticate('anything')).toBe('default');
    expect(t.list().map((p) => p.tenant)).toEqual(['default']);
    expect(agentQueueFor('delegate', 'acme')).toBe('delegate-agents-acme');
  });
});
