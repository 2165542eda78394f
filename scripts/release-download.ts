/**
 * Downloads a pinned tool's release archive (the tar.gz GoReleaser publishes on the GitHub
 * release, e.g. temporal_cli_1.5.1_linux_amd64.tar.gz), checks its SHA-256 against the checksums
 * file published beside it, and only then extracts the binaries into the tools folder.
 *
 *   <base>/<repo>/releases/download/<tag>/checksums.txt ──▶ the archive's published sha256
 *   <base>/<repo>/releases/download/<tag>/<archive>     ──▶ .download-<pid>/<archive>, hashed as it arrives
 *        sha256 equal and every byte there ──▶ extract the wanted files ──▶ rename into the folder
 *
 * <base> is https://github.com, or DELEGATE_TOOLS_DOWNLOAD_URL: a mirror with the same paths.
 * Nothing of a download that is cut off, or whose checksum differs, is kept.
 *
 * Why not the SDK's own downloader (sdk-core's ephemeral_server, reached from JS only through
 * @temporalio/testing's TestWorkflowEnvironment.createLocal): its URL is fixed
 * (https://temporal.download), it checks no checksum, it downloads only as part of starting a dev
 * server of its own (no download-only call, and the process is the native bridge's, not a child
 * the supervisor restarts), and it knows the CLI only, not the server or the UI server.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { chmodSync, createReadStream, createWriteStream, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { createGunzip } from 'node:zlib';

/** Where release archives come from unless DELEGATE_TOOLS_DOWNLOAD_URL names a mirror. */
export const DEFAULT_DOWNLOAD_URL = 'https://github.com';

/** A platform as GoReleaser names it in archive names. */
export interface ReleasePlatform {
  os: 'linux' | 'darwin';
  arch: 'amd64' | 'arm64';
}

/** A GitHub release's archive of a tool. */
export interface ReleaseArchive {
  /** owner/name, e.g. temporalio/cli */
  repo: string;
  /** e.g. v1.5.1 */
  tag: string;
  /** The archive's file name for a platform. */
  archive: (p: ReleasePlatform) => string;
  /** Names the release's checksums file may have (`sha256  name` lines): the first one found is used. */
  checksums: string[];
  /** Files of the archive (by base name, at any depth) → the names to keep them under. */
  files: Record<string, string>;
}

/** This machine's platform in GoReleaser's names, or undefined when no archive is published for it. */
export function releasePlatform(platform: string = process.platform, arch: string = process.arch): ReleasePlatform | undefined {
  const os = platform === 'linux' || platform === 'darwin' ? platform : undefined;
  const goArch = arch === 'x64' ? 'amd64' : arch === 'arm64' ? 'arm64' : undefined;
  return os && goArch ? { os, arch: goArch } : undefined;
}

/** The base of release downloads: DELEGATE_TOOLS_DOWNLOAD_URL or github.com, without a trailing slash. */
export function downloadBase(env: NodeJS.ProcessEnv = process.env): string {
  return (env.DELEGATE_TOOLS_DOWNLOAD_URL || DEFAULT_DOWNLOAD_URL).replace(/\/+$/, '');
}

/** The URL of one file of the release (the release's folder when `file` is ''). */
export function releaseUrl(release: Pick<ReleaseArchive, 'repo' | 'tag'>, file: string, env: NodeJS.ProcessEnv = process.env): string {
  return `${downloadBase(env)}/${release.repo}/releases/download/${release.tag}/${file}`;
}

/** The sha256 a checksums file gives `file` (GoReleaser's `<hex>  <name>` lines), or undefined. */
export function checksumFor(checksums: string, file: string): string | undefined {
  for (const line of checksums.split('\n')) {
    const m = /^([0-9a-fA-F]{64})\s+\*?(\S+)\s*$/.exec(line.trim());
    if (m && m[2] === file) return m[1].toLowerCase();
  }
  return undefined;
}

/** A fetch whose network failure says what could not be reached (fetch's own says "fetch failed"). */
async function get(url: string, signal: AbortSignal): Promise<Response> {
  try {
    return await fetch(url, { signal, redirect: 'follow' });
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const why =
      e.name === 'TimeoutError' || e.name === 'AbortError' ? 'no answer in time' : (e.cause?.code ?? e.cause?.message ?? e.message);
    throw new Error(`cannot reach ${new URL(url).host} (${why})`);
  }
}

const mb = (bytes: number) => (bytes / 1e6).toFixed(1);

/** Options of `downloadRelease`. */
export interface DownloadOptions {
  /** Said in progress lines, e.g. "the Temporal CLI v1.5.1". */
  label: string;
  log: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  /** @default this machine's */
  platform?: ReleasePlatform;
  /** A download that receives nothing this long is given up. @default 60_000 */
  idleTimeoutMs?: number;
  /** How often a progress line is printed. @default 2_000 */
  progressMs?: number;
}

/**
 * Downloads, verifies and extracts the release's archive; the files appear in `dir` (by their
 * kept names, executable) only when all went well. The caller holds the tools folder's lock.
 */
export async function downloadRelease(release: ReleaseArchive, dir: string, opts: DownloadOptions): Promise<void> {
  const env = opts.env ?? process.env;
  const platform = opts.platform ?? releasePlatform();
  if (!platform) throw new Error(`no release archive is published for ${process.platform}/${process.arch}`);
  const archive = release.archive(platform);
  const started = Date.now();

  // the published checksum first: an archive without one is not downloaded at all
  let expected: string | undefined;
  let checksumsName = '';
  for (const name of release.checksums) {
    const res = await get(releaseUrl(release, name, env), AbortSignal.timeout(30_000));
    if (res.status === 404) continue;
    if (!res.ok) throw new Error(`${releaseUrl(release, name, env)} answered ${res.status}`);
    checksumsName = name;
    expected = checksumFor(await res.text(), archive);
    break;
  }
  if (!checksumsName)
    throw new Error(`the release has no checksums file (${release.checksums.join(', ')}) at ${releaseUrl(release, '', env)}`);
  if (!expected) throw new Error(`${checksumsName} has no checksum for ${archive}: not downloading it`);

  mkdirSync(dir, { recursive: true });
  const staging = join(dir, `.download-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging);
  try {
    const url = releaseUrl(release, archive, env);
    opts.log(`Downloading ${opts.label} (${archive}) from ${url} into ${dir} (once per machine)...`);
    const file = join(staging, archive);
    const { bytes, sha256 } = await fetchTo(url, file, opts);
    if (sha256 !== expected) {
      throw new Error(`${archive} does not match its published checksum (${checksumsName}: ${expected}, downloaded: ${sha256}): not used`);
    }
    const extracted = join(staging, 'files');
    mkdirSync(extracted);
    await extractTarGz(file, Object.fromEntries(Object.entries(release.files).map(([from, to]) => [from, join(extracted, to)])));
    for (const to of Object.values(release.files)) {
      chmodSync(join(extracted, to), 0o755);
      renameSync(join(extracted, to), join(dir, to));
    }
    opts.log(
      `${opts.label} ready after ${((Date.now() - started) / 1000).toFixed(1)} s (${mb(bytes)} MB, sha256 checked against ${checksumsName}): ${dir}`,
    );
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Streams `url` into `file`, hashing as it goes, with progress lines; refuses an answer cut short. */
async function fetchTo(url: string, file: string, opts: DownloadOptions): Promise<{ bytes: number; sha256: string }> {
  const idleMs = opts.idleTimeoutMs ?? 60_000;
  const controller = new AbortController();
  let idle = setTimeout(() => controller.abort(), idleMs);
  const res = await get(url, controller.signal).catch((err: Error) => {
    clearTimeout(idle);
    throw err;
  });
  if (!res.ok || !res.body) {
    clearTimeout(idle);
    throw new Error(`${url} answered ${res.status}`);
  }
  const total = Number(res.headers.get('content-length')) || undefined;
  const hash = createHash('sha256');
  const out = createWriteStream(file);
  let bytes = 0;
  let shown = Date.now();
  const began = Date.now();
  try {
    for await (const chunk of Readable.fromWeb(res.body as WebReadableStream<Uint8Array>)) {
      clearTimeout(idle);
      idle = setTimeout(() => controller.abort(), idleMs);
      const buf = chunk as Buffer;
      hash.update(buf);
      bytes += buf.length;
      if (!out.write(buf)) await once(out, 'drain');
      if (Date.now() - shown >= (opts.progressMs ?? 2_000)) {
        shown = Date.now();
        const rate = mb(bytes / ((Date.now() - began) / 1000));
        opts.log(`  ... ${mb(bytes)}${total ? ` of ${mb(total)} MB (${Math.floor((100 * bytes) / total)}%)` : ' MB'}, ${rate} MB/s`);
      }
    }
  } catch (err) {
    const why = controller.signal.aborted ? `nothing received for ${idleMs / 1000} s` : (err as Error).message;
    throw new Error(`the download of ${basename(file)} was cut off after ${bytes}${total ? ` of ${total}` : ''} bytes (${why}): not used`);
  } finally {
    clearTimeout(idle);
    out.end();
    await once(out, 'close');
  }
  if (total !== undefined && bytes !== total) {
    throw new Error(`the download of ${basename(file)} was cut off after ${bytes} of ${total} bytes: not used`);
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** Reads a stream a number of bytes at a time (the tar reader's input). */
class Bytes {
  private chunks: Buffer[] = [];
  private have = 0;
  constructor(private readonly source: AsyncIterator<Buffer>) {}

  private async more(): Promise<boolean> {
    const next = await this.source.next();
    if (next.done) return false;
    this.chunks.push(next.value);
    this.have += next.value.length;
    return true;
  }

  /** Exactly `n` bytes, or undefined at the end of the stream. */
  async read(n: number): Promise<Buffer | undefined> {
    while (this.have < n) if (!(await this.more())) return undefined;
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    this.chunks = all.length > n ? [all.subarray(n)] : [];
    this.have -= n;
    return all.subarray(0, n);
  }

  /** The next `n` bytes as they come (an archive that ends first is an error). */
  async *take(n: number): AsyncGenerator<Buffer> {
    let left = n;
    while (left > 0) {
      if (!this.chunks.length && !(await this.more())) throw new Error('the archive ends inside a file');
      const c = this.chunks.shift()!;
      const part = c.length <= left ? c : c.subarray(0, left);
      if (c.length > left) this.chunks.unshift(c.subarray(left));
      this.have -= part.length;
      left -= part.length;
      yield part;
    }
  }
}

const text = (b: Buffer) => b.toString('utf8').replace(/\0.*$/s, '');

/** A tar header's number: octal text, or base-256 when the first byte's high bit is set. */
function tarNumber(b: Buffer): number {
  if (b[0] & 0x80) return b.subarray(1).reduce((n, byte) => n * 256 + byte, b[0] & 0x7f);
  return parseInt(text(b).trim() || '0', 8);
}

/** The `path` of a pax extended header (`<len> key=value\n` records). */
function paxPath(b: Buffer): string | undefined {
  for (const record of b.toString('utf8').split('\n')) {
    const m = /^\d+ path=(.*)$/.exec(record);
    if (m) return m[1];
  }
  return undefined;
}

/**
 * Extracts the regular files whose base name is a key of `wanted` (at any depth of the archive)
 * to the paths given; every other entry is skipped. Reads ustar, pax and GNU long names: what Go's
 * archive/tar (GoReleaser) and GNU or BSD tar write. Throws when a wanted file is not there.
 */
export async function extractTarGz(archive: string, wanted: Record<string, string>): Promise<void> {
  const gunzip = createReadStream(archive).pipe(createGunzip());
  const bytes = new Bytes(gunzip[Symbol.asyncIterator]() as AsyncIterator<Buffer>);
  const found = new Set<string>();
  let longName: string | undefined;
  try {
    for (;;) {
      const header = await bytes.read(512);
      if (!header || header.every((b) => b === 0)) break;
      const size = tarNumber(header.subarray(124, 136));
      const type = String.fromCharCode(header[156] || 48);
      const prefix = text(header.subarray(257, 263)).startsWith('ustar') ? text(header.subarray(345, 500)) : '';
      const name = longName ?? (prefix ? `${prefix}/${text(header.subarray(0, 100))}` : text(header.subarray(0, 100)));
      longName = undefined;
      const pad = (512 - (size % 512)) % 512;
      if (type === 'L' || type === 'x') {
        const data = (await bytes.read(size + pad))?.subarray(0, size);
        if (!data) throw new Error('the archive ends inside a header');
        longName = type === 'L' ? text(data) : paxPath(data);
        continue;
      }
      const dest = (type === '0' || type === '7') && wanted[basename(name)];
      if (dest) {
        await pipeline(Readable.from(bytes.take(size)), createWriteStream(dest, { mode: 0o755 }));
        found.add(basename(name));
      } else {
        for await (const chunk of bytes.take(size)) void chunk.length;
      }
      if (pad && !(await bytes.read(pad))) break;
    }
  } finally {
    gunzip.destroy();
  }
  const missing = Object.keys(wanted).filter((f) => !found.has(f));
  if (missing.length) throw new Error(`${basename(archive)} has no ${missing.join(', ')}`);
  for (const f of Object.values(wanted)) if (!existsSync(f)) throw new Error(`extracting ${f} failed`);
}
