/**
 * The scout's sandbox: `read_file` and `grep` confined to the scope, which is confined to the
 * root. Every path is resolved with realpath at the moment it is used, so a symlink that leads
 * out of the scope is refused when it is read, not only when the scope was checked.
 *
 *   path ──realpath──> inside realpath(root)? ──> inside a scope entry? ──> read (size caps) / grep (RE2)
 *                          └─no: path_outside_root    └─no: ScoutToolError outside_scope
 *
 * A refused path throws ScoutToolError: the LLM agent hands its message to the model as the
 * tool's answer (the tool itself was allowed; the path was not), so the model can correct it.
 *
 * What an operator did not choose to expose is never read: there is no root unless one is
 * configured (scout-root.ts; never the process's working directory), and whatever the root, a dot-entry
 * (`.data`, `.git`, `.env`) or a secret-bearing file (secret-files.ts: keys, certificates, env
 * files, cloud credentials, databases, logs, backups) is refused in a scope, refused to
 * `read_file` and skipped by `grep`, unless the operator's allow-list (`DELEGATE_SCOUT_ALLOW`)
 * names it. A file that holds a private key is refused whatever its name; key-shaped strings in
 * what is read or searched are redacted before the model (or grep) sees them.
 */
import { open, readFile, readdir, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { RE2JS } from 're2js';
import { NO_SCOUT_ROOT } from './scout-root';
import { holdsPrivateKey, isDeniedPath, redactSecrets, scoutAllowList } from './secret-files';

export { isDeniedPath } from './secret-files';

/** Largest text one `read_file` returns. */
export const MAX_READ_BYTES = 256 * 1024;
/** Files larger than this are neither read nor searched. */
export const MAX_FILE_BYTES = 2 * 1024 * 1024;
/** Most matches one `grep` returns. */
export const MAX_GREP_RESULTS = 200;
/** Most files one `grep` opens: the walk stops there and says so. */
export const MAX_GREP_FILES = 5000;
/** Longest line text a grep match carries. */
const MAX_MATCH_CHARS = 300;
/** Directories never searched: dependencies, not the project's own code (dot-directories are denied outright). */
const SKIPPED_DIRS = new Set(['node_modules']);

/** Why a scope path is refused. */
export type ScopeRefusal = 'path_outside_root' | 'not_found' | 'path_denied';
/** The scope, resolved: paths relative to the root (posix, "." for the root itself), or the first one refused. */
export type ScopeResolution = { ok: true; paths: string[] } | { ok: false; index: number; path: string; reason: ScopeRefusal };

/** Why a tool call is refused. */
export type ScoutToolErrorCode =
  'outside_scope' | 'denied' | 'no_root' | 'not_found' | 'not_a_file' | 'binary_file' | 'too_large' | 'bad_arguments';

/** A refused `read_file`/`grep` call; its message is safe to show the model (paths relative to the root). */
export class ScoutToolError extends Error {
  override readonly name = 'ScoutToolError';
  constructor(
    readonly code: ScoutToolErrorCode,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

const inside = (base: string, p: string) => p === base || p.startsWith(base.endsWith(sep) ? base : base + sep);
const posix = (p: string) => (p === '' ? '.' : p.split(sep).join('/'));

/** True when absolute `p` is denied as seen from `base` (one of its entries below `base` is, and `allow` does not lift it). */
const deniedBelow = (base: string, p: string, allow: readonly string[]) => isDeniedPath(posix(relative(base, p)), allow);

/**
 * Checks every scope path against the root, following symlinks: the first one outside it (or
 * missing, or denied) refuses the scope. `allow` is the operator's allow-list (DELEGATE_SCOUT_ALLOW).
 */
export async function resolveScope(root: string, paths: string[], allow: readonly string[] = scoutAllowList()): Promise<ScopeResolution> {
  const given = resolve(root);
  const realRoot = await realpath(given);
  const out: string[] = [];
  for (const [index, path] of paths.entries()) {
    // the path as written, against the real root and against the root as given
    const lexical = resolve(realRoot, path);
    const named = resolve(given, path);
    // refused before touching the disk: a path outside does not learn whether it exists
    if (path.includes('\0') || !(inside(realRoot, lexical) || inside(given, named)))
      return { ok: false, index, path, reason: 'path_outside_root' };
    // denied by name before the disk is touched: a denied path does not learn whether it exists
    if (deniedBelow(realRoot, lexical, allow) || deniedBelow(given, named, allow)) return { ok: false, index, path, reason: 'path_denied' };
    let real: string;
    try {
      real = await realpath(isAbsolute(path) ? path : resolve(realRoot, path));
    } catch {
      return { ok: false, index, path, reason: 'not_found' };
    }
    if (!inside(realRoot, real)) return { ok: false, index, path, reason: 'path_outside_root' };
    const rel = posix(relative(realRoot, real));
    // where it leads, too: a harmless-looking symlink to .data is refused
    if (isDeniedPath(rel, allow)) return { ok: false, index, path, reason: 'path_denied' };
    if (!out.includes(rel)) out.push(rel);
  }
  return { ok: true, paths: out };
}

/** One `grep` match. */
export interface GrepMatch {
  /** Relative to the root, posix. */
  file: string;
  /** 1-based. */
  line: number;
  /** The line's text (cut at 300 characters). */
  text: string;
}

/** What `read_file` returns: a window of lines. */
export interface ReadResult {
  file: string;
  /** 1-based number of the first line returned. */
  startLine: number;
  /** Lines returned, starting at startLine. */
  lines: string[];
  totalLines: number;
  /** True when the window was cut (by `limit` or by the byte cap). */
  truncated: boolean;
}

/** The two tools, confined to one scope. */
export interface ScoutSandbox {
  /** Reads lines of a file in scope: `offset` is the 1-based first line (default 1), `limit` the count (default 2000). */
  readFile(path: string, opts?: { offset?: number; limit?: number }): Promise<ReadResult>;
  /** Searches files in scope (or under `path`) for an RE2 regex, or the literal text when it is not one (or `literal`). */
  grep(
    pattern: string,
    opts?: { path?: string; ignoreCase?: boolean; maxResults?: number; literal?: boolean },
  ): Promise<{ matches: GrepMatch[]; truncated: boolean }>;
  /** The files `readFile` read, relative, in order of first reading. */
  inspected(): string[];
  /** The scope as resolved (relative paths). */
  scope(): Promise<string[]>;
}

/** True when the first bytes hold a NUL: a binary file, not searched or read. */
const looksBinary = (buf: Buffer) => buf.subarray(0, 8192).includes(0);

/**
 * A sandbox over `scopePaths` (relative to `root`, or absolute inside it); no root: every call is
 * refused with `no_root`. `allow` is the operator's allow-list (default: DELEGATE_SCOUT_ALLOW).
 */
export function createSandbox(root: string | undefined, scopePaths: string[], allow: readonly string[] = scoutAllowList()): ScoutSandbox {
  const inspected: string[] = [];
  const setup = (async () => {
    if (root === undefined) throw new ScoutToolError('no_root', NO_SCOUT_ROOT);
    const realRoot = await realpath(resolve(root));
    const scope = await resolveScope(realRoot, scopePaths, allow);
    if (!scope.ok) throw new ScoutToolError('outside_scope', `scope path ${JSON.stringify(scope.path)} refused: ${scope.reason}`);
    return { realRoot, rel: scope.paths, abs: scope.paths.map((p) => resolve(realRoot, p)) };
  })();
  setup.catch(() => {});

  /** The real path of a requested path, when it is inside the scope; refuses otherwise. */
  async function confine(path: string): Promise<{ real: string; rel: string }> {
    const { realRoot, abs } = await setup;
    if (typeof path !== 'string' || path.length === 0 || path.includes('\0'))
      throw new ScoutToolError('bad_arguments', 'path must be a non-empty string');
    const lexical = resolve(realRoot, path);
    if (!inside(realRoot, lexical)) throw new ScoutToolError('outside_scope', `${JSON.stringify(path)} is outside the scope`);
    let real: string;
    try {
      real = await realpath(lexical);
    } catch {
      throw new ScoutToolError('not_found', `${JSON.stringify(path)} does not exist`);
    }
    if (!abs.some((a) => inside(a, real))) throw new ScoutToolError('outside_scope', `${JSON.stringify(path)} is outside the scope`);
    const rel = posix(relative(realRoot, real));
    if (deniedBelow(realRoot, lexical, allow) || isDeniedPath(rel, allow))
      throw new ScoutToolError('denied', `${JSON.stringify(path)} is a dot-entry or a secret-bearing file`);
    return { real, rel };
  }

  async function loadText(real: string, rel: string): Promise<string> {
    const info = await stat(real);
    if (!info.isFile()) throw new ScoutToolError('not_a_file', `${rel} is not a file`);
    if (info.size > MAX_FILE_BYTES) throw new ScoutToolError('too_large', `${rel} has ${info.size} bytes, over ${MAX_FILE_BYTES}`);
    const fh = await open(real, 'r');
    try {
      const buf = await fh.readFile();
      if (looksBinary(buf)) throw new ScoutToolError('binary_file', `${rel} is binary`);
      const text = buf.toString('utf8');
      if (holdsPrivateKey(text)) throw new ScoutToolError('denied', `${rel} holds a private key`);
      return redactSecrets(text, rel);
    } finally {
      await fh.close();
    }
  }

  return {
    async readFile(path, { offset = 1, limit = 2000 } = {}) {
      const { real, rel } = await confine(path);
      const all = (await loadText(real, rel)).split(/\r?\n/);
      const start = Math.max(1, Math.floor(offset));
      const lines: string[] = [];
      let bytes = 0;
      for (let i = start - 1; i < all.length && lines.length < Math.max(1, Math.floor(limit)); i++) {
        bytes += Buffer.byteLength(all[i]) + 1;
        if (bytes > MAX_READ_BYTES) break;
        lines.push(all[i]);
      }
      if (!inspected.includes(rel)) inspected.push(rel);
      return { file: rel, startLine: start, lines, totalLines: all.length, truncated: start - 1 + lines.length < all.length };
    },

    async grep(pattern, { path, ignoreCase = false, maxResults = 50, literal = false } = {}) {
      if (typeof pattern !== 'string' || pattern.length === 0 || pattern.length > 1000)
        throw new ScoutToolError('bad_arguments', 'pattern must be 1–1000 characters');
      const { realRoot, abs } = await setup;
      const flags = ignoreCase ? RE2JS.CASE_INSENSITIVE : 0;
      let re: RE2JS;
      try {
        // RE2: linear time whatever the model writes; a pattern that is not a regex is searched as text
        re = RE2JS.compile(literal ? RE2JS.quote(pattern) : pattern, flags);
      } catch {
        re = RE2JS.compile(RE2JS.quote(pattern), flags);
      }
      const cap = Math.min(Math.max(1, Math.floor(maxResults)), MAX_GREP_RESULTS);
      const starts = path === undefined ? abs : [(await confine(path)).real];
      const matches: GrepMatch[] = [];
      const seen = new Set<string>();
      let files = 0;
      let truncated = false;
      const visit = async (real: string): Promise<void> => {
        if (truncated || seen.has(real)) return;
        seen.add(real);
        const info = await stat(real).catch(() => undefined);
        if (!info) return;
        if (info.isDirectory()) {
          const names = (await readdir(real)).filter((n) => !SKIPPED_DIRS.has(n)).sort();
          for (const name of names) {
            // a denied name is skipped unresolved; any other entry is re-resolved, as a symlink
            // inside the scope may lead out of it or into a denied entry
            if (deniedBelow(realRoot, join(real, name), allow)) continue;
            const child = await realpath(join(real, name)).catch(() => undefined);
            if (child && !deniedBelow(realRoot, child, allow) && abs.some((a) => inside(a, child))) await visit(child);
            if (truncated) return;
          }
          return;
        }
        if (!info.isFile() || info.size > MAX_FILE_BYTES) return;
        if (++files > MAX_GREP_FILES) {
          truncated = true;
          return;
        }
        const buf = await readFile(real);
        if (looksBinary(buf)) return;
        const text = buf.toString('utf8');
        if (holdsPrivateKey(text)) return;
        const rel = posix(relative(realRoot, real));
        // searched redacted, as read_file returns it: a pattern must not probe a key character by character
        const lines = redactSecrets(text, rel).split(/\r?\n/);
        for (let i = 0; i < lines.length; i++) {
          if (!re.test(lines[i])) continue;
          if (matches.length >= cap) {
            truncated = true;
            return;
          }
          matches.push({
            file: rel,
            line: i + 1,
            text: lines[i].length > MAX_MATCH_CHARS ? `${lines[i].slice(0, MAX_MATCH_CHARS)}…` : lines[i],
          });
        }
      };
      for (const s of starts) await visit(s);
      return { matches, truncated };
    },

    inspected: () => [...inspected],
    scope: async () => (await setup).rel,
  };
}
