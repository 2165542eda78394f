/**
 * Redaction of strings that may carry secrets before they reach results, histories or logs:
 * URLs lose their credentials, path and query (only scheme, host and port stay), bearer
 * tokens and `key=value` secrets lose their value.
 */

/** Just the origin of a URL (`https://host:port`): paths and queries of webhooks and agents often carry tokens. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    const rest = u.pathname !== '/' || u.search || u.hash ? '/…' : '';
    return `${u.protocol}//${u.host}${rest}`;
  } catch {
    return '[url]';
  }
}

const URL_RE = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;
const BEARER_RE = /\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{6,}/gi;
const KEY_VALUE_RE =
  /\b((?:[a-z0-9_-]*(?:api[_-]?key|apikey|token|secret|password|passwd|signature|credential|auth))\b["']?\s*[=:]\s*["']?)[^\s"'&,;}]+/gi;
const API_KEY_RE = /\b(sk|pk|rk|ghp|gho|xox[abp])[-_][A-Za-z0-9_-]{8,}/g;

/** A copy of `text` with URLs cut to their origin and bearer tokens, API keys and `secret=value` pairs masked. */
export function redact(text: string): string {
  return text
    .replace(URL_RE, (m) => redactUrl(m))
    .replace(BEARER_RE, (_, scheme: string) => `${scheme} [redacted]`)
    .replace(KEY_VALUE_RE, (_, key: string) => `${key}[redacted]`)
    .replace(API_KEY_RE, '[redacted]');
}
