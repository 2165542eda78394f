/**
 * Where the worker may send a webhook: a pure address policy (no I/O), used at submission
 * (literal addresses in the URL) and at connect time (every address the name resolves to).
 *
 *   callbackUrl ──checkCallbackUrl──> 400/422 at submission
 *   hostname ──resolve──> [addresses] ──addressRefusal(each)──> connect to a checked one | refuse
 *
 * Refused: loopback, private, link-local, CGNAT, unspecified, multicast, reserved and cloud
 * metadata addresses, also inside IPv4-mapped / NAT64 / 6to4 IPv6 forms. `allowCidrs` and
 * `allowHosts` open ranges and names for internal receivers; metadata stays refused whatever they say.
 */
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { ConfigSchema } from '../schemas/config';

/** Operator allowances over the default refusals. */
export interface NetPolicy {
  /** Loopback targets (and plain http to them) are allowed: development only. @default false */
  allowLoopback?: boolean;
  /** CIDRs whose addresses are allowed although private or reserved ("10.1.0.0/16", "fd12::/16"). */
  allowCidrs?: readonly string[];
  /** Host names allowed to resolve to private addresses (exact, case-insensitive). */
  allowHosts?: readonly string[];
}

type Bytes = number[];

/**
 * The address's bytes (4 for IPv4, 16 for IPv6; zone ids ignored), or undefined when it is not an IP.
 * IPv4 in four decimal parts only: ipaddr.js, like inet_aton, also reads "127.1" and "0x7f.0.0.1",
 * forms a URL parser never hands over as written, so a check of them would judge another address.
 */
export function parseIp(ip: string): Bytes | undefined {
  const s = ip.replace(/^\[|\]$/g, '');
  if (ipaddr.IPv4.isValidFourPartDecimal(s)) return ipaddr.IPv4.parse(s).toByteArray();
  if (s.includes(':') && ipaddr.IPv6.isValid(s)) return ipaddr.IPv6.parse(s).toByteArray();
  return undefined;
}

interface Cidr {
  bytes: Bytes;
  bits: number;
}

/** Parses "a.b.c.d/n" or "x::/n" (a bare address is a /32 or /128); throws naming the bad entry. */
export function parseCidr(cidr: string): Cidr {
  const [addr, len, extra] = cidr.trim().split('/');
  const bytes = parseIp(addr);
  const bits = len === undefined ? (bytes?.length ?? 0) * 8 : Number(len);
  if (!bytes || extra !== undefined || !/^\d*$/.test(len ?? '') || !Number.isInteger(bits) || bits < 0 || bits > bytes.length * 8)
    throw new Error(`invalid CIDR "${cidr}"`);
  return { bytes, bits };
}

function inCidr(bytes: Bytes, { bytes: net, bits }: Cidr): boolean {
  return bytes.length === net.length && ipaddr.fromByteArray(bytes).match(ipaddr.fromByteArray(net), bits);
}

/** What kind of destination an address is; only `public` is allowed without an allowance. */
export type AddressClass =
  'public' | 'loopback' | 'private' | 'link-local' | 'cgnat' | 'unspecified' | 'multicast' | 'reserved' | 'metadata' | 'invalid';

const RANGES: [string, AddressClass][] = [
  // cloud metadata first: they also sit in link-local / private / CGNAT ranges
  ['169.254.169.254/32', 'metadata'],
  ['fd00:ec2::254/128', 'metadata'],
  ['100.100.100.200/32', 'metadata'],
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'cgnat'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'reserved'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['100::/64', 'reserved'],
  ['2001::/32', 'reserved'], // Teredo: hides an IPv4 address we cannot check
  ['64:ff9b:1::/48', 'reserved'], // local-use NAT64 (RFC 8215): a gateway may map it anywhere inside
  ['::ffff:0:0:0/96', 'reserved'], // SIIT-translated IPv4
  ['fc00::/7', 'private'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'private'],
  ['ff00::/8', 'multicast'],
].map(([c, k]) => [c, k] as [string, AddressClass]);
const PARSED_RANGES = RANGES.map(([c, k]) => [parseCidr(c), k] as const);

/** IPv6 forms that carry an IPv4 address: that address is what gets reached, so it is what is checked. */
function embeddedIpv4(b: Bytes): Bytes | undefined {
  if (b.length !== 16) return undefined;
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return b.slice(12); // ::ffff:a.b.c.d (mapped)
  if (zero(0, 12) && !zero(12, 16) && !(zero(12, 15) && b[15] === 1)) return b.slice(12); // ::a.b.c.d (compatible)
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12)) return b.slice(12); // 64:ff9b::/96 NAT64
  if (b[0] === 0x20 && b[1] === 0x02) return b.slice(2, 6); // 2002::/16 6to4
  return undefined;
}

function normalise(ip: string): Bytes | undefined {
  const b = parseIp(ip);
  return b && (embeddedIpv4(b) ?? b);
}

/** The class of an address (IPv4-mapped and other IPv4-carrying IPv6 forms are judged by their IPv4 part). */
export function classifyAddress(ip: string): AddressClass {
  const b = normalise(ip);
  if (!b) return 'invalid';
  return PARSED_RANGES.find(([c]) => inCidr(b, c))?.[1] ?? 'public';
}

/** Host names of metadata services, refused by name before any lookup. */
const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

/** Why a connection to `ip` (for `host`, over `protocol`) is refused, or undefined when it is allowed. */
export function addressRefusal(ip: string, policy: NetPolicy = {}, host?: string, protocol = 'https:'): string | undefined {
  const kind = classifyAddress(ip);
  if (kind === 'invalid') return 'not an IP address';
  if (kind === 'metadata') return 'a cloud metadata address';
  const loopbackOk = kind === 'loopback' && policy.allowLoopback === true;
  const b = normalise(ip)!;
  const allowed =
    kind === 'public' ||
    loopbackOk ||
    (policy.allowCidrs ?? []).some((c) => inCidr(b, parseCidr(c))) ||
    (host !== undefined && (policy.allowHosts ?? []).some((h) => h.toLowerCase() === host.toLowerCase()));
  if (!allowed) return `a ${kind} address`;
  if (protocol !== 'https:' && !loopbackOk) return 'not https (plain http is allowed only to loopback in development)';
  return undefined;
}

/** True when the policy refuses `ip` as a webhook destination. */
export function isBlockedAddress(ip: string, policy: NetPolicy = {}): boolean {
  return addressRefusal(ip, policy) !== undefined;
}

/** Why a host name is refused before any lookup (metadata names; `localhost` without the allowance). */
export function hostRefusal(hostname: string, policy: NetPolicy = {}): string | undefined {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  if (METADATA_HOSTS.has(h)) return 'a cloud metadata host';
  if ((h === 'localhost' || h.endsWith('.localhost')) && !policy.allowLoopback) return 'a loopback host';
  return undefined;
}

/**
 * The submission-time check of a callbackUrl: scheme, metadata names, literal addresses.
 * Names are resolved only at delivery, where every resolved address is checked again.
 * Returns why the URL is refused, or undefined.
 */
export function checkCallbackUrl(url: string, policy: NetPolicy = {}): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'callbackUrl is not a valid URL';
  }
  const loopbackName = /^(localhost|.*\.localhost)\.?$/i.test(u.hostname);
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && policy.allowLoopback)) return 'callbackUrl must use https';
  const byName = hostRefusal(u.hostname, policy);
  if (byName) return `callbackUrl names ${byName}`;
  const ip = u.hostname.replace(/^\[|\]$/g, '');
  if (parseIp(ip)) {
    const why = addressRefusal(ip, policy, undefined, u.protocol);
    return why && `callbackUrl points at ${why}`;
  }
  if (u.protocol === 'http:' && !loopbackName) return 'callbackUrl must use https (plain http is allowed only to loopback in development)';
  return undefined;
}

/** The policy of the DELEGATE_WEBHOOK_ALLOW_* variables, read where no parsed configuration reaches (the agents file's loader), as the configuration reads them. */
export function netPolicyFromEnv(env: NodeJS.ProcessEnv): NetPolicy {
  return netPolicyFromConfig(WEBHOOK_POLICY_ENV.parse(env));
}

const { DELEGATE_WEBHOOK_ALLOW_LOOPBACK, DELEGATE_WEBHOOK_ALLOW_CIDRS, DELEGATE_WEBHOOK_ALLOW_HOSTS } = ConfigSchema.shape;
const WEBHOOK_POLICY_ENV = z.object({ DELEGATE_WEBHOOK_ALLOW_LOOPBACK, DELEGATE_WEBHOOK_ALLOW_CIDRS, DELEGATE_WEBHOOK_ALLOW_HOSTS });

/** The policy the configuration asks for; throws naming a bad CIDR (at start, not at the first webhook). */
export function netPolicyFromConfig(config: {
  DELEGATE_WEBHOOK_ALLOW_LOOPBACK?: boolean;
  DELEGATE_WEBHOOK_ALLOW_CIDRS?: string[];
  DELEGATE_WEBHOOK_ALLOW_HOSTS?: string[];
}): NetPolicy {
  const allowCidrs = config.DELEGATE_WEBHOOK_ALLOW_CIDRS ?? [];
  for (const c of allowCidrs) parseCidr(c);
  return {
    allowLoopback: config.DELEGATE_WEBHOOK_ALLOW_LOOPBACK ?? false,
    allowCidrs,
    allowHosts: config.DELEGATE_WEBHOOK_ALLOW_HOSTS ?? [],
  };
}

/** The address policy of LLM agents' HTTP MCP servers (DELEGATE_MCP_ALLOW_*); throws naming a bad CIDR. */
export function mcpPolicyFromConfig(config: {
  DELEGATE_MCP_ALLOW_LOOPBACK?: boolean;
  DELEGATE_MCP_ALLOW_CIDRS?: string[];
  DELEGATE_MCP_ALLOW_HOSTS?: string[];
}): NetPolicy {
  return netPolicyFromConfig({
    DELEGATE_WEBHOOK_ALLOW_LOOPBACK: config.DELEGATE_MCP_ALLOW_LOOPBACK,
    DELEGATE_WEBHOOK_ALLOW_CIDRS: config.DELEGATE_MCP_ALLOW_CIDRS,
    DELEGATE_WEBHOOK_ALLOW_HOSTS: config.DELEGATE_MCP_ALLOW_HOSTS,
  });
}
