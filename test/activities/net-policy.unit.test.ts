import { describe, expect, it } from 'vitest';
import {
  addressRefusal,
  checkCallbackUrl,
  classifyAddress,
  isBlockedAddress,
  netPolicyFromConfig,
  parseCidr,
  parseIp,
} from '../../activities/net-policy';

describe('webhook address policy', () => {
  it('parses IPv4, IPv6, compressed and IPv4-suffixed forms, and nothing else', () => {
    expect(parseIp('10.1.2.3')).toEqual([10, 1, 2, 3]);
    expect(parseIp('::1')).toEqual([...Array(15).fill(0), 1]);
    expect(parseIp('[fe80::1%eth0]')?.slice(0, 2)).toEqual([0xfe, 0x80]);
    expect(parseIp('::ffff:127.0.0.1')?.slice(10)).toEqual([0xff, 0xff, 127, 0, 0, 1]);
    // inet_aton's short and hex forms are not read: a URL parser never hands them over as written
    for (const bad of ['256.1.1.1', '1.2.3', '127.1', '0x7f.0.0.1', '017.0.0.1x', 'example.com', '1::2::3', '1:2:3:4:5:6:7:8:9', '', '::g'])
      expect(parseIp(bad)).toBeUndefined();
  });

  it('classifies every refused range, IPv4-mapped and other IPv4-carrying IPv6 forms included', () => {
    const cases: [string, string][] = [
      ['127.0.0.1', 'loopback'],
      ['127.255.1.2', 'loopback'],
      ['::1', 'loopback'],
      ['10.0.0.5', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.1.1', 'private'],
      ['fc00::1', 'private'],
      ['fd12:3456::1', 'private'],
      ['169.254.1.1', 'link-local'],
      ['fe80::1', 'link-local'],
      ['febf::1', 'link-local'],
      ['100.64.0.1', 'cgnat'],
      ['100.127.255.254', 'cgnat'],
      ['0.0.0.0', 'unspecified'],
      ['::', 'unspecified'],
      ['224.0.0.1', 'multicast'],
      ['ff02::1', 'multicast'],
      ['255.255.255.255', 'reserved'],
      ['169.254.169.254', 'metadata'],
      ['fd00:ec2::254', 'metadata'],
      ['100.100.100.200', 'metadata'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:7f00:1', 'loopback'],
      ['::ffff:169.254.169.254', 'metadata'],
      ['::ffff:a9fe:a9fe', 'metadata'],
      ['64:ff9b::10.0.0.1', 'private'],
      ['2002:c0a8:0101::1', 'private'],
      ['::10.0.0.1', 'private'],
      ['8.8.8.8', 'public'],
      ['172.32.0.1', 'public'],
      ['100.128.0.1', 'public'],
      ['2606:4700::1111', 'public'],
      ['::ffff:8.8.8.8', 'public'],
      ['not-an-ip', 'invalid'],
    ];
    for (const [ip, kind] of cases) expect([ip, classifyAddress(ip)]).toEqual([ip, kind]);
    expect(isBlockedAddress('8.8.8.8')).toBe(false);
    expect(isBlockedAddress('::ffff:10.0.0.1')).toBe(true);
  });

  it('opens loopback only when allowed, private ranges by CIDR or host name, and never metadata', () => {
    expect(addressRefusal('127.0.0.1')).toMatch(/loopback/);
    expect(addressRefusal('127.0.0.1', { allowLoopback: true })).toBeUndefined();
    expect(addressRefusal('127.0.0.1', { allowLoopback: true }, undefined, 'http:')).toBeUndefined();
    expect(addressRefusal('8.8.8.8', {}, undefined, 'http:')).toMatch(/not https/);
    expect(addressRefusal('10.20.3.4', { allowCidrs: ['10.20.0.0/16'] })).toBeUndefined();
    expect(addressRefusal('10.21.3.4', { allowCidrs: ['10.20.0.0/16'] })).toMatch(/private/);
    expect(addressRefusal('::ffff:10.20.3.4', { allowCidrs: ['10.20.0.0/16'] })).toBeUndefined();
    expect(addressRefusal('fd12::9', { allowCidrs: ['fd12::/16'] })).toBeUndefined();
    expect(addressRefusal('192.168.0.9', { allowHosts: ['hooks.corp'] }, 'HOOKS.corp')).toBeUndefined();
    expect(addressRefusal('192.168.0.9', { allowHosts: ['hooks.corp'] }, 'other.corp')).toMatch(/private/);
    expect(addressRefusal('169.254.169.254', { allowCidrs: ['0.0.0.0/0'], allowLoopback: true }, 'x')).toMatch(/metadata/);
    expect(addressRefusal('fd00:ec2::254', { allowCidrs: ['::/0'] })).toMatch(/metadata/);
  });

  it('checks a callbackUrl at submission: https, literal addresses and metadata names', () => {
    expect(checkCallbackUrl('https://hooks.example.com/x?token=1')).toBeUndefined();
    expect(checkCallbackUrl('http://hooks.example.com/x')).toMatch(/https/);
    expect(checkCallbackUrl('ftp://hooks.example.com/x')).toMatch(/https/);
    expect(checkCallbackUrl('not a url')).toMatch(/valid URL/);
    expect(checkCallbackUrl('https://10.0.0.1/')).toMatch(/private/);
    expect(checkCallbackUrl('https://169.254.169.254/latest/meta-data')).toMatch(/metadata/);
    expect(checkCallbackUrl('https://[::ffff:169.254.169.254]/')).toMatch(/metadata/);
    expect(checkCallbackUrl('https://[fd00:ec2::254]/')).toMatch(/metadata/);
    expect(checkCallbackUrl('https://metadata.google.internal/computeMetadata/v1/')).toMatch(/metadata/);
    expect(checkCallbackUrl('https://2130706433/')).toMatch(/loopback/); // the URL parser's 127.0.0.1
    expect(checkCallbackUrl('https://0x7f.1/')).toMatch(/loopback/);
    expect(checkCallbackUrl('https://localhost/')).toMatch(/loopback/);
    expect(checkCallbackUrl('http://127.0.0.1:8080/hook')).toMatch(/https/);
    expect(checkCallbackUrl('http://127.0.0.1:8080/hook', { allowLoopback: true })).toBeUndefined();
    expect(checkCallbackUrl('http://localhost:8080/hook', { allowLoopback: true })).toBeUndefined();
    expect(checkCallbackUrl('http://[::1]:8080/hook', { allowLoopback: true })).toBeUndefined();
    expect(checkCallbackUrl('http://10.0.0.1/hook', { allowLoopback: true })).toMatch(/private/);
    expect(checkCallbackUrl('http://hooks.example.com/x', { allowLoopback: true })).toMatch(/https/);
    expect(checkCallbackUrl('https://10.20.0.1/', { allowCidrs: ['10.20.0.0/16'] })).toBeUndefined();
  });

  it('reads its allowances from the configuration and refuses a bad CIDR at start', () => {
    expect(parseCidr('10.0.0.0/8')).toEqual({ bytes: [10, 0, 0, 0], bits: 8 });
    expect(parseCidr('::1').bits).toBe(128);
    for (const bad of ['10.0.0.0/33', '10.0.0/8', 'x/1', '10.0.0.0/8/1', 'fd00::/129'])
      expect(() => parseCidr(bad)).toThrow(/invalid CIDR/);
    expect(netPolicyFromConfig({ DELEGATE_WEBHOOK_ALLOW_LOOPBACK: true, DELEGATE_WEBHOOK_ALLOW_CIDRS: ['10.0.0.0/8'] })).toMatchObject({
      allowLoopback: true,
      allowCidrs: ['10.0.0.0/8'],
    });
    expect(() => netPolicyFromConfig({ DELEGATE_WEBHOOK_ALLOW_CIDRS: ['10.0.0.0/40'] })).toThrow(/10\.0\.0\.0\/40/);
  });
});
