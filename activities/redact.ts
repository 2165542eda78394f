/**
 * Redaction of strings that may carry secrets before they reach results, histories or logs:
 * URLs lose their credentials, path and query (only scheme, host and port stay), bearer
 * tokens and `key=value` secrets lose their value, key-shaped strings (`redactKeys`, which the
 * scout applies to every line it returns) are masked.
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

/** Strings shaped like a known kind of key: they are secrets wherever they appear, whatever the line says around them. */
const KEY_SHAPES = [
  // AWS access key ids
  /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|AROA|ANPA|ANVA)[A-Z0-9]{16}\b/g,
  // OpenAI, Anthropic, Stripe (sk-, sk-ant-, sk-proj-, sk_live_, rk_...): with a digit, so `pk_users_email` stays
  /\b(?:sk|pk|rk)[-_](?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{16,}/g,
  // GitHub, GitLab, npm, Slack, Google, Delegate's own keys
  /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}|npm_[A-Za-z0-9]{30,})/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\bAIza[0-9A-Za-z_-]{35}/g,
  /\bdlg_[A-Za-z0-9]{16,}/g,
  // JWTs
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];
const BEARER_KEY_RE = /\b(Bearer|Basic)\s+(?=[A-Za-z0-9._~+/=-]*\d)[A-Za-z0-9._~+/=-]{16,}/g;
const PEM_BEGIN_RE = /-----BEGIN [A-Z0-9 ]+-----/;

/** The body lines of `-----BEGIN ...-----` blocks (and what follows a header on its line) as `[redacted]`, line by line. */
function redactPemBodies(text: string): string {
  if (!text.includes('-----BEGIN ')) return text;
  let inBlock = false;
  return text
    .split('\n')
    .map((line) => {
      const begin = PEM_BEGIN_RE.exec(line);
      if (begin) {
        inBlock = !line.includes('-----END ');
        const rest = line.slice(begin.index + begin[0].length);
        return /^\s*[A-Za-z0-9+/=_-]{16,}/.test(rest) ? `${line.slice(0, begin.index + begin[0].length)} [redacted]` : line;
      }
      if (!inBlock) return line;
      if (line.includes('-----END ')) {
        inBlock = false;
        return line;
      }
      // base64 and the headers of an encrypted block (Proc-Type, DEK-Info): anything else ends the block
      if (/^\s*([A-Za-z0-9+/=]{8,}|[A-Za-z-]+:.*)\s*\r?$/.test(line)) return line.endsWith('\r') ? '[redacted]\r' : '[redacted]';
      if (line.trim() !== '') inBlock = false;
      return line;
    })
    .join('\n');
}

/** A copy of `text` with key-shaped strings (AWS, OpenAI/Anthropic, GitHub, Slack, Google keys, JWTs, PEM bodies) masked, lines kept. */
export function redactKeys(text: string): string {
  let out = redactPemBodies(text);
  for (const re of KEY_SHAPES) out = out.replace(re, '[redacted]');
  return out.replace(BEARER_KEY_RE, (_, scheme: string) => `${scheme} [redacted]`);
}

/** A copy of `text` with URLs cut to their origin and bearer tokens, API keys and `secret=value` pairs masked. */
export function redact(text: string): string {
  return redactKeys(text)
    .replace(URL_RE, (m) => redactUrl(m))
    .replace(BEARER_RE, (_, scheme: string) => `${scheme} [redacted]`)
    .replace(KEY_VALUE_RE, (_, key: string) => `${key}[redacted]`)
    .replace(API_KEY_RE, '[redacted]');
}
