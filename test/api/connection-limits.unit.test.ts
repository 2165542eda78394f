/** The connection limits' pure parts: the peer key, the per-peer count, and the server options from the configuration. */
import { describe, expect, it } from 'vitest';
import { createPeerCounter, peerKeyOf, serverOptionsOf } from '../../api/connection-limits';
import { ConfigSchema } from '../../schemas';

describe('connection limits', () => {
  it('counts IPv4 (also mapped into IPv6) by address and IPv6 by its /64', () => {
    expect(peerKeyOf('127.0.0.1')).toBe('127.0.0.1');
    expect(peerKeyOf('::ffff:10.0.0.7')).toBe('10.0.0.7');
    expect(peerKeyOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(peerKeyOf('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(peerKeyOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(peerKeyOf('::1')).toBe('0:0:0:0::/64');
    expect(peerKeyOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(peerKeyOf(undefined)).toBe('unknown');
  });

  it('admits up to the cap per peer, then refuses that peer only, until one of its connections closes', () => {
    const peers = createPeerCounter(2);
    expect([peers.admit('a'), peers.admit('a'), peers.admit('a')]).toEqual([true, true, false]);
    expect(peers.admit('b')).toBe(true);
    expect(peers.count('a')).toBe(2);
    peers.release('a');
    expect(peers.admit('a')).toBe(true);
    // 0: no cap
    const open = createPeerCounter(0);
    for (let i = 0; i < 1000; i++) expect(open.admit('a')).toBe(true);
  });

  it('turns the configuration into Fastify options in milliseconds, with the defaults tests and one proxy-less host need', () => {
    const o = serverOptionsOf(ConfigSchema.parse({}));
    expect(o).toEqual({
      connectionTimeout: 300_000,
      requestTimeout: 60_000,
      keepAliveTimeout: 10_000,
      maxRequestsPerSocket: 0,
      http: { headersTimeout: 10_000, connectionsCheckingInterval: 1000 },
    });
    const fast = serverOptionsOf(ConfigSchema.parse({ DELEGATE_HEADERS_TIMEOUT_SECONDS: '0.5' }));
    expect(fast.http).toEqual({ headersTimeout: 500, connectionsCheckingInterval: 100 });
    expect(() => ConfigSchema.parse({ DELEGATE_MAX_CONNECTIONS_PER_PEER: '-1' })).toThrow(/DELEGATE_MAX_CONNECTIONS_PER_PEER|too_small/);
  });
});
