/** The Host/Origin allow-list's rules, without a server. */
import { describe, expect, it } from 'vitest';
import { hostAllowed, hostPolicyOf, originAllowed } from '../../api/host-check';

const base = {
  HOST: '127.0.0.1',
  PORT: 3000,
  PUBLIC_URL: undefined,
  DELEGATE_AUTH: 'on' as const,
  DELEGATE_ALLOWED_HOSTS: [],
  DELEGATE_ALLOWED_ORIGINS: [],
};

describe('host policy', () => {
  it('is on when bound to loopback or auth is off or hosts are listed, off otherwise', () => {
    expect(hostPolicyOf(base)).toBeDefined();
    expect(hostPolicyOf({ ...base, HOST: '0.0.0.0' })).toBeUndefined();
    expect(hostPolicyOf({ ...base, HOST: '0.0.0.0', DELEGATE_AUTH: 'off' })).toBeDefined();
    expect(hostPolicyOf({ ...base, HOST: '0.0.0.0', DELEGATE_ALLOWED_HOSTS: ['api.example'] })?.hosts).toEqual(['api.example']);
  });

  it('matches names on any port, entries with a port exactly, and refuses what does not parse', () => {
    const p = hostPolicyOf({ ...base, PUBLIC_URL: 'https://Delegate.Example:8443/base' })!;
    expect(p.hosts).toEqual(['localhost', '127.0.0.1', '[::1]', 'delegate.example:8443']);
    for (const h of ['localhost', 'localhost:3000', '127.0.0.1:1', '[::1]:3000', 'LOCALHOST:3000', 'delegate.example:8443'])
      expect(hostAllowed(h, p), h).toBe(true);
    for (const h of [
      undefined,
      '',
      'evil.example',
      'localhost.evil.example',
      '127.0.0.1.nip.io',
      'delegate.example',
      'delegate.example:443',
      'user@localhost',
      'localhost/x',
      '[::2]',
    ])
      expect(hostAllowed(h, p), String(h)).toBe(false);
  });

  it('takes origins whose host passes, or only the listed ones', () => {
    const p = hostPolicyOf(base)!;
    expect(originAllowed('http://localhost:5173', p)).toBe(true);
    expect(originAllowed('https://127.0.0.1', p)).toBe(true);
    for (const o of ['null', 'http://evil.example', 'file://localhost', 'chrome-extension://abc', 'http://localhost.evil.example'])
      expect(originAllowed(o, p), o).toBe(false);
    const listed = hostPolicyOf({ ...base, DELEGATE_ALLOWED_ORIGINS: ['https://console.example/'] })!;
    expect(originAllowed('https://console.example', listed)).toBe(true);
    expect(originAllowed('http://localhost:5173', listed)).toBe(false);
  });
});
