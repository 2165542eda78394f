/**
 * What the scout may not read, decided by what a file is rather than by a list of exact names:
 * name patterns on every entry of a path (a denied directory denies its contents), the
 * operator's allow-list above them, and the text itself, sniffed when it is read.
 *
 *   path ──each entry: dot-entry? secret-shaped name? (unless DELEGATE_SCOUT_ALLOW lifts it)──> denied
 *   text ──holds a private key? (whatever the allow-list)──> refused
 *        ──key-shaped strings and secret assignments redacted (line by line)──> read_file / grep
 */
import { extname } from 'node:path';
import { redactKeys } from '../redact';

/** Extensions of source code: the right-hand side of an assignment is an expression, not a literal. */
const CODE_EXT = new Set(
  'ts tsx mts cts js jsx mjs cjs py go rs java kt kts scala rb php cs c h cc cpp hpp swift dart lua ex exs erl hs clj vue svelte'.split(
    ' ',
  ),
);
/** Source and docs: a name that only mentions a secret (`tokens.ts`, `webhook-secret.ts`, `api-keys.md`) is code about it. */
const SOURCE_EXT = new Set([...CODE_EXT, ...'md mdx rst adoc html css scss'.split(' ')]);

/** Names denied whatever they end in: the exact name or the last extension says what the file is. */
const DENIED_NAMES = [
  // the deployment's own files
  /^api-key$/i,
  /^(keys|agents)(\..*)?\.json$/i,
  // env files (`.env*` are dot-entries)
  /\.env$/i,
  // keys, certificates, keystores
  /\.(pem|key|crt|cer|der|csr|p7b|p7c|p8|p12|pfx|jks|keystore|truststore|kdbx|ppk|gpg|asc)$/i,
  /^id_(rsa|dsa|ecdsa|ed25519)/i,
  // cloud and tool credentials (`.aws/`, `.kube/`, `.docker/`, `.npmrc`, `.netrc`... are dot-entries)
  /^(credentials?|secrets?)(\..*)?$/i,
  /^kubeconfig/i,
  /^_?(htpasswd|netrc|pgpass|npmrc|pypirc|git-credentials)$/i,
  /\.(tfstate|tfvars)$/i,
  // backups, editors' copies, rotations; databases, dumps and logs (a step log holds every tenant's steps)
  /\.(bak|backup|old|orig|rej|save|swp|swo|tmp)$/i,
  /~$/,
  /^#.*#$/,
  /\.(db|db3|sqlite|sqlite3|mdb|dump)(-wal|-shm|-journal)?$/i,
  /\.log$/i,
];

/** Names denied unless they end as source or docs: a secret's variant (`config.env.local`, `delegate.db.1`) or a secret's word. */
const DENIED_UNLESS_SOURCE = [
  /\.env\./i,
  /\.(db|sqlite3?|log|tfstate|pem|key|crt|p12|pfx|jks)[.-]/i,
  /^service[-_]?account/i,
  /(secrets?|passwords?|passwd|passphrase|tokens?|api[-_]?keys?|private[-_]?keys?|credentials?)([^a-z]|$)/i,
];

/** True when one entry's name (a file's or a directory's) is a dot-entry or names a secret-bearing file. */
export function isSecretName(name: string): boolean {
  if (name.startsWith('.') && name !== '.' && name !== '..') return true;
  if (DENIED_NAMES.some((re) => re.test(name))) return true;
  return !SOURCE_EXT.has(extname(name).slice(1).toLowerCase()) && DENIED_UNLESS_SOURCE.some((re) => re.test(name));
}

/** One allow-list glob as a matcher: with a "/" it matches the path from the root, without one a name at any depth. */
interface AllowGlob {
  re: RegExp;
  path: boolean;
}

function globRegex(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      const slashAfter = glob[i + 2] === '/';
      const atEnd = i + 2 === glob.length && out.endsWith('/');
      // `a/**` is the directory a and all below it; `**/b` is b at any depth
      if (atEnd) out = `${out.slice(0, -1)}(?:/.*)?`;
      else out += slashAfter ? '(?:.*/)?' : '.*';
      i += slashAfter ? 2 : 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/** Parses `DELEGATE_SCOUT_ALLOW` (comma-separated globs relative to the root); throws naming the variable. */
export function parseScoutAllow(text: string | readonly string[] | undefined): string[] {
  const globs = (typeof text === 'string' ? text.split(',') : (text ?? [])).map((g) => g.trim().replace(/^\.\//, '')).filter(Boolean);
  for (const g of globs)
    if (g.startsWith('/') || g.split('/').includes('..'))
      throw new Error(`DELEGATE_SCOUT_ALLOW: ${JSON.stringify(g)} must be a glob relative to the scout root, without ".."`);
  return globs;
}

/** `DELEGATE_SCOUT_ALLOW` as last read: every sandbox asks, the text is parsed once (again only when it changes). */
let lastAllow: { text: string | undefined; globs: string[] } | undefined;

/** The operator's allow-list from the environment (API and workers must agree). */
export function scoutAllowList(env: { DELEGATE_SCOUT_ALLOW?: string } = process.env): string[] {
  if (!lastAllow || lastAllow.text !== env.DELEGATE_SCOUT_ALLOW)
    lastAllow = { text: env.DELEGATE_SCOUT_ALLOW, globs: parseScoutAllow(env.DELEGATE_SCOUT_ALLOW) };
  return lastAllow.globs;
}

const compiled = new Map<string, AllowGlob[]>();
function matchers(allow: readonly string[]): AllowGlob[] {
  const key = allow.join('\n');
  let m = compiled.get(key);
  if (!m) compiled.set(key, (m = allow.map((g) => ({ re: globRegex(g), path: g.includes('/') }))));
  return m;
}

/**
 * True when a path relative to the root (posix) may not be read: one of its entries is a
 * dot-entry or names a secret-bearing file, and no allow glob lifts that entry. A glob lifts an
 * entry it matches (the path up to it, or its name): `*.pem` opens `certs/a.pem` but not
 * `secrets/a.pem`, whose directory stays denied unless `secrets/**` is allowed too.
 */
export function isDeniedPath(rel: string, allow: readonly string[] = scoutAllowList()): boolean {
  if (rel === '' || rel === '.') return false;
  const segs = rel.split(/[\\/]/);
  const globs = matchers(allow);
  return segs.some((seg, i) => {
    if (!isSecretName(seg)) return false;
    const upTo = segs.slice(0, i + 1).join('/');
    return !globs.some((g) => g.re.test(g.path ? upTo : seg));
  });
}

/** A private key: a PEM block with a body (`-----BEGIN ... PRIVATE KEY-----`, OpenSSH's, PGP's) or a PuTTY key file. */
const PRIVATE_KEY = [
  /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[ \t]*\r?\n(?:[ \t]*[A-Za-z-]+:[^\r\n]*\r?\n|[ \t]*\r?\n)*[ \t]*[A-Za-z0-9+/=]{16,}/,
  /^PuTTY-User-Key-File-\d+:/m,
];

/** True when the text holds a private key anywhere: such a file is refused whole, whatever its name or the allow-list. */
export const holdsPrivateKey = (text: string): boolean => PRIVATE_KEY.some((re) => re.test(text));

/** `key = value`, `key: value`, `"key": "value"`: the key, its separator, and a quoted or bare value (one line). */
const ASSIGNMENT =
  /(["']?)(?<![\w.-])([A-Za-z_][\w.-]*)\1([ \t]*(?::=|=>|=(?!=)|:(?!:))[ \t]*)(?:(["'`])((?:\\.|(?!\4)[^\\\r\n])*)\4|([^\r\n]*))/g;
/** The last word of a key that holds a secret (`DB_PASSWORD`, `accessToken`, `client-secret`). */
const SECRET_WORDS = new Set(['password', 'passwd', 'passphrase', 'secret', 'secrets', 'token', 'credential', 'credentials', 'apikey']);
/** Words that make a following `key` a secret (`api_key`, `secretKey`, `aws_secret_access_key`). */
const KEY_KINDS = new Set(['api', 'access', 'private', 'secret', 'signing', 'client', 'encryption', 'master']);

/** A word every secret key (see isSecretKey) contains. */
const SECRET_HINT = /passw|passphrase|secret|token|credential|key/i;

/** True when a key names a secret by its last word: `apiKey` does, `apiKeyHeader` and `tokenizer` do not. */
export function isSecretKey(key: string): boolean {
  const words = key
    .split(/[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
  const last = words.at(-1) ?? '';
  return SECRET_WORDS.has(last) || (last === 'key' && KEY_KINDS.has(words.at(-2) ?? ''));
}

/**
 * One line with the values of its secret assignments replaced by `[redacted]`: quoted values
 * everywhere, a bare one (to the end of the line) only outside code. After any other key the scan
 * goes on right behind it, so `user=bob password=x` and `"url": "…?token=x"` lose their secrets too.
 */
function redactAssignments(line: string, code: boolean): string {
  let out = '';
  let done = 0;
  ASSIGNMENT.lastIndex = 0;
  for (let m = ASSIGNMENT.exec(line); m; m = ASSIGNMENT.exec(line)) {
    const [all, q, key, sep, quote, quoted, bare] = m;
    const value =
      quote !== undefined ? (quoted ? `${quote}[redacted]${quote}` : undefined) : code || !bare.trim() ? undefined : '[redacted]';
    if (!isSecretKey(key) || value === undefined) {
      ASSIGNMENT.lastIndex = m.index + q.length + key.length;
      continue;
    }
    out += `${line.slice(done, m.index)}${q}${key}${q}${sep}${value}`;
    done = m.index + all.length;
    ASSIGNMENT.lastIndex = done;
  }
  return out + line.slice(done);
}

/**
 * The text with key-shaped strings masked (redact.ts's `redactKeys`) and the values of secret
 * assignments replaced by `[redacted]`: quoted values everywhere, bare ones only outside source
 * code (in code `token = getToken()` is an expression). Lines are kept, so line numbers hold.
 */
export function redactSecrets(text: string, file: string): string {
  const code = CODE_EXT.has(extname(file).slice(1).toLowerCase());
  // most lines name no secret: the assignment pass runs only on those that do
  return redactKeys(text)
    .split('\n')
    .map((line) => (SECRET_HINT.test(line) ? redactAssignments(line, code) : line))
    .join('\n');
}
