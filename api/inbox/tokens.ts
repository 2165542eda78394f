/**
 * The approvals' token URLs: `<publicUrl>/v1/approvals/token/<token>` decides one item without
 * the tenant's key (a link in a chat message or an email). A token names its tenant, item
 * and expiry and is signed with the tenant's own key, derived from the deployment's master
 * (as webhook secrets are): a token of one tenant never opens another's item.
 *
 *   token = base64url({"t":tenant,"i":id,"e":expiry seconds}) "." base64url(HMAC-SHA256(tenantKey, payload))
 *
 * Single use: the item it decides is decided once (a second use is 409); past its expiry 410.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** A tenant's token key: HMAC-SHA256(master, "approvals:<tenant>"). */
export function approvalKeyFor(master: string, tenant: string): string {
  return createHmac('sha256', master).update(`approvals:${tenant}`).digest('hex');
}

/** What a token says. */
export interface TokenClaims {
  tenant: string;
  id: string;
  /** Epoch seconds. */
  expiresAt: number;
}

const mac = (master: string, tenant: string, payload: string) =>
  createHmac('sha256', approvalKeyFor(master, tenant)).update(payload).digest('base64url');

/** A signed token for one item. */
export function signApprovalToken(master: string, c: TokenClaims): string {
  const payload = Buffer.from(JSON.stringify({ t: c.tenant, i: c.id, e: c.expiresAt })).toString('base64url');
  return `${payload}.${mac(master, c.tenant, payload)}`;
}

/** The claims of a token whose signature holds (expired or not); undefined when it is forged, altered or malformed. */
export function readApprovalToken(master: string, token: string): TokenClaims | undefined {
  const dot = token.indexOf('.');
  if (dot <= 0 || token.length > 2048) return undefined;
  const payload = token.slice(0, dot);
  let claims: { t?: unknown; i?: unknown; e?: unknown };
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof claims;
  } catch {
    return undefined;
  }
  if (typeof claims.t !== 'string' || typeof claims.i !== 'string' || typeof claims.e !== 'number') return undefined;
  const want = Buffer.from(mac(master, claims.t, payload));
  const got = Buffer.from(token.slice(dot + 1));
  if (want.length !== got.length || !timingSafeEqual(want, got)) return undefined;
  return { tenant: claims.t, id: claims.i, expiresAt: claims.e };
}
