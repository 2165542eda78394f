/**
 * Getting the pinned Temporal tools without Go (issue 56): the real download-verify-extract code
 * (scripts/release-download.ts) against a local HTTP server laid out as a GitHub release
 * (DELEGATE_TOOLS_DOWNLOAD_URL), serving a small archive made with tar and its checksums file; and
 * the order a tool is looked for in (scripts/go-tools.ts): $TEMPORAL_CLI, PATH, the tools folder,
 * Go, the download.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/dev-server';
import { ensureTool, hasVersion, type PinnedTool } from '../../scripts/go-tools';
import { checksumFor, downloadRelease, releasePlatform, releaseUrl, type ReleaseArchive } from '../../scripts/release-download';
import { cliVersion, ensureTemporalCli, temporalCliTool, toolsDir } from '../../scripts/temporal-cli';

const work = mkdtempSync(join(tmpdir(), 'delegate-release-'));
const platform = { os: 'linux', arch: 'amd64' } as const;
const ARCHIVE = 'temporal_cli_1.5.1_linux_amd64.tar.gz';
const RELEASE_PATH = '/temporalio/cli/releases/download/v1.5.1/';

/** What the mirror serves, by path; `cut` sends half the body and drops the connection. */
interface Served {
  body: Buffer;
  cut?: boolean;
}
const files = new Map<string, Served>();
const requests: string[] = [];
let server: Server;
let base = '';

/** A tar.gz made by tar from `entries` (name → content), in the given tar format. */
function makeArchive(entries: Record<string, string | Buffer>, format: 'gnu' | 'pax' | 'ustar' = 'gnu'): Buffer {
  const src = mkdtempSync(join(work, 'src-'));
  for (const [name, content] of Object.entries(entries)) {
    mkdirSync(join(src, name, '..'), { recursive: true });
    writeFileSync(join(src, name), content);
    chmodSync(join(src, name), 0o755);
  }
  const out = join(src, '..', `${Math.random().toString(36).slice(2)}.tar.gz`);
  execFileSync('tar', [`--format=${format}`, '-czf', out, '-C', src, ...Object.keys(entries)]);
  return readFileSync(out);
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const FAKE_CLI = '#!/bin/sh\necho "temporal version 1.5.1 (from the mirror)"\n';

/** Serves `archive` as the release's CLI archive, with a checksums file giving `checksum` (default: its own). */
function publish(archive: Buffer, opts: { checksum?: string; cut?: boolean; checksums?: string } = {}): void {
  files.clear();
  files.set(RELEASE_PATH + ARCHIVE, { body: archive, cut: opts.cut });
  const line = `${opts.checksum ?? sha256(archive)}  ${ARCHIVE}\n`;
  const other = `${'0'.repeat(64)}  temporal_cli_1.5.1_darwin_arm64.tar.gz\n`;
  files.set(RELEASE_PATH + 'checksums.txt', { body: Buffer.from(opts.checksums ?? other + line) });
}

const release = (): ReleaseArchive => temporalCliTool({}).release;
const env = () => ({ DELEGATE_TOOLS_DOWNLOAD_URL: base });
const silent = () => {};

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const file = files.get(req.url ?? '');
    if (!file) return void res.writeHead(404).end('not found');
    res.writeHead(200, { 'content-length': String(file.body.length) });
    if (!file.cut) return void res.end(file.body);
    res.write(file.body.subarray(0, file.body.length >> 1), () => res.socket?.destroy());
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  rmSync(work, { recursive: true, force: true });
});
beforeEach(() => void (requests.length = 0));

/** A fresh tools folder. */
const freshDir = () => mkdtempSync(join(work, 'tools-'));
/** Nothing but the kept files: no staging folder, no partial archive. */
const listing = (dir: string) => readdirSync(dir).sort();

describe('downloadRelease', () => {
  it('downloads the archive, checks it against the published checksum, and keeps the binary, with progress lines', async () => {
    // 3 MB of LICENSE beside the binary: the download arrives in many chunks
    publish(makeArchive({ temporal: FAKE_CLI, LICENSE: randomBytes(3_000_000) }));
    const dir = freshDir();
    const lines: string[] = [];
    await downloadRelease(release(), dir, {
      label: 'the Temporal CLI v1.5.1',
      log: (l) => lines.push(l),
      env: env(),
      platform,
      progressMs: 0,
    });
    expect(listing(dir)).toEqual(['temporal']);
    expect(execFileSync(join(dir, 'temporal'), { encoding: 'utf8' })).toContain('from the mirror');
    expect(lines[0]).toBe(
      `Downloading the Temporal CLI v1.5.1 (${ARCHIVE}) from ${base}${RELEASE_PATH}${ARCHIVE} into ${dir} (once per machine)...`,
    );
    expect(lines.some((l) => /^ {2}\.\.\. [\d.]+ of [\d.]+ MB \(\d+%\)/.test(l))).toBe(true);
    expect(lines.at(-1)).toMatch(/^the Temporal CLI v1\.5\.1 ready after [\d.]+ s \([\d.]+ MB, sha256 checked against checksums\.txt\)/);
    // the checksum first, then the archive
    expect(requests).toEqual([`${RELEASE_PATH}checksums.txt`, `${RELEASE_PATH}${ARCHIVE}`]);
  });

  it('finds the binary in a pax archive, under a folder with a long path', async () => {
    const deep = `${'folder-with-a-long-name/'.repeat(6)}temporal`;
    expect(deep.length).toBeGreaterThan(100);
    publish(makeArchive({ [deep]: FAKE_CLI, 'README.md': 'hello' }, 'pax'));
    const dir = freshDir();
    await downloadRelease(release(), dir, { label: 'the CLI', log: silent, env: env(), platform });
    expect(execFileSync(join(dir, 'temporal'), { encoding: 'utf8' })).toContain('from the mirror');
  });

  it('refuses an archive whose checksum is not the published one, and keeps nothing of it', async () => {
    const archive = makeArchive({ temporal: FAKE_CLI });
    publish(archive, { checksum: sha256(Buffer.from('another archive')) });
    const dir = freshDir();
    await expect(downloadRelease(release(), dir, { label: 'the CLI', log: silent, env: env(), platform })).rejects.toThrow(
      `${ARCHIVE} does not match its published checksum (checksums.txt: ${sha256(Buffer.from('another archive'))}, downloaded: ${sha256(archive)}): not used`,
    );
    expect(listing(dir)).toEqual([]);
  });

  it('does not use a download that was cut off', async () => {
    publish(makeArchive({ temporal: FAKE_CLI, LICENSE: randomBytes(1_000_000) }), { cut: true });
    const dir = freshDir();
    await expect(downloadRelease(release(), dir, { label: 'the CLI', log: silent, env: env(), platform })).rejects.toThrow(
      /^the download of temporal_cli_1\.5\.1_linux_amd64\.tar\.gz was cut off after \d+ of \d+ bytes .*: not used$/,
    );
    expect(listing(dir)).toEqual([]);
  });

  it('does not download an archive the checksums file does not list', async () => {
    publish(makeArchive({ temporal: FAKE_CLI }), { checksums: `${'1'.repeat(64)}  temporal_cli_1.5.1_darwin_arm64.tar.gz\n` });
    const dir = freshDir();
    await expect(downloadRelease(release(), dir, { label: 'the CLI', log: silent, env: env(), platform })).rejects.toThrow(
      `checksums.txt has no checksum for ${ARCHIVE}: not downloading it`,
    );
    expect(requests).toEqual([`${RELEASE_PATH}checksums.txt`]);
  });

  it('says which file an archive lacks', async () => {
    publish(makeArchive({ 'not-temporal': FAKE_CLI }));
    const dir = freshDir();
    await expect(downloadRelease(release(), dir, { label: 'the CLI', log: silent, env: env(), platform })).rejects.toThrow(
      `${ARCHIVE} has no temporal`,
    );
    expect(listing(dir)).toEqual([]);
  });

  it('says what it could not reach, and that a release has no checksums file', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const dir = freshDir();
    await expect(
      downloadRelease(release(), dir, { label: 'the CLI', log: silent, env: { DELEGATE_TOOLS_DOWNLOAD_URL: closed }, platform }),
    ).rejects.toThrow(`cannot reach ${closed.slice(7)} (ECONNREFUSED)`);
    files.clear();
    await expect(downloadRelease(release(), dir, { label: 'the CLI', log: silent, env: env(), platform })).rejects.toThrow(
      `the release has no checksums file (checksums.txt) at ${base}${RELEASE_PATH}`,
    );
  });
});

describe('release names', () => {
  it('reads GoReleaser checksum lines', () => {
    const text = `${'a'.repeat(64)}  temporal_cli_1.5.1_linux_amd64.tar.gz\n${'B'.repeat(64)} *temporal_cli_1.5.1_darwin_arm64.tar.gz\n`;
    expect(checksumFor(text, 'temporal_cli_1.5.1_linux_amd64.tar.gz')).toBe('a'.repeat(64));
    expect(checksumFor(text, 'temporal_cli_1.5.1_darwin_arm64.tar.gz')).toBe('b'.repeat(64));
    expect(checksumFor(text, 'temporal_cli_1.5.1_linux_arm64.tar.gz')).toBeUndefined();
  });

  it("maps Node's platform to GoReleaser's, and the release location to a mirror", () => {
    expect(releasePlatform('linux', 'x64')).toEqual({ os: 'linux', arch: 'amd64' });
    expect(releasePlatform('darwin', 'arm64')).toEqual({ os: 'darwin', arch: 'arm64' });
    expect(releasePlatform('win32', 'x64')).toBeUndefined();
    expect(releaseUrl(release(), ARCHIVE, {})).toBe(`https://github.com/temporalio/cli/releases/download/v1.5.1/${ARCHIVE}`);
    expect(releaseUrl(release(), ARCHIVE, { DELEGATE_TOOLS_DOWNLOAD_URL: 'http://mirror.local/gh/' })).toBe(
      `http://mirror.local/gh/temporalio/cli/releases/download/v1.5.1/${ARCHIVE}`,
    );
  });

  it('matches a version as a word', () => {
    expect(hasVersion('temporal version 1.29.1', 'v1.29.1')).toBe(true);
    expect(hasVersion('Temporal UI version 2.42.1', '2.42.1')).toBe(true);
    expect(hasVersion('temporal version 1.29.10', '1.29.1')).toBe(false);
  });
});

describe('where a tool comes from', () => {
  /** A folder of executables for PATH. */
  function binDir(scripts: Record<string, string>): string {
    const dir = mkdtempSync(join(work, 'bin-'));
    for (const [name, body] of Object.entries(scripts)) {
      writeFileSync(join(dir, name), body);
      chmodSync(join(dir, name), 0o755);
    }
    return dir;
  }
  /** An environment with only `pathDirs` on PATH and its own cache folder. */
  const envWith = (extra: Record<string, string> = {}) => ({
    XDG_CACHE_HOME: mkdtempSync(join(work, 'cache-')),
    PATH: binDir({}),
    DELEGATE_TOOLS_DOWNLOAD_URL: base,
    DELEGATE_GO: 'off',
    ...extra,
  });
  const platformOk = releasePlatform() !== undefined;

  it('$TEMPORAL_CLI first: an existing path, as the SDK\'s "existing-path" (the machine\'s own CLI)', async () => {
    const machineCli = join(toolsDir(), 'temporal');
    if (!existsSync(machineCli)) return; // no CLI on this machine yet (`npm run temporal:install`)
    const bin = await ensureTemporalCli(silent, { ...envWith(), TEMPORAL_CLI: machineCli });
    expect(bin).toBe(machineCli);
    expect(cliVersion(bin)).toMatch(/^temporal version /);
    expect(requests).toEqual([]);
    await expect(ensureTemporalCli(silent, { TEMPORAL_CLI: '/nowhere/temporal' })).rejects.toThrow(
      'TEMPORAL_CLI points at /nowhere/temporal, which does not exist',
    );
  });

  it('then temporal on PATH, then the tools folder, without a request', async () => {
    const path = binDir({ temporal: FAKE_CLI });
    expect(await ensureTemporalCli(silent, envWith({ PATH: path }))).toBe(join(path, 'temporal'));
    const cached = envWith();
    mkdirSync(toolsDir(cached), { recursive: true });
    writeFileSync(join(toolsDir(cached), 'temporal'), FAKE_CLI);
    expect(await ensureTemporalCli(silent, cached)).toBe(join(toolsDir(cached), 'temporal'));
    expect(requests).toEqual([]);
  });

  it.runIf(platformOk)('without Go, the download, once: a second start finds it in the tools folder', async () => {
    const { os, arch } = releasePlatform()!;
    const archive = `temporal_cli_1.5.1_${os}_${arch}.tar.gz`;
    const tar = makeArchive({ temporal: FAKE_CLI });
    files.clear();
    files.set(RELEASE_PATH + archive, { body: tar });
    files.set(RELEASE_PATH + 'checksums.txt', { body: Buffer.from(`${sha256(tar)}  ${archive}\n`) });
    const e = envWith();
    const lines: string[] = [];
    const bin = await ensureTemporalCli((l) => lines.push(l), e);
    expect(bin).toBe(join(toolsDir(e), 'temporal'));
    expect(lines[0]).toMatch(/^Downloading the Temporal CLI v1\.5\.1/);
    expect(await ensureTemporalCli(silent, e)).toBe(bin);
    expect(requests.filter((r) => r.endsWith('.tar.gz'))).toHaveLength(1);
  });

  it.runIf(platformOk)('Go before the download; a Go build that fails falls back to the download', async () => {
    const { os, arch } = releasePlatform()!;
    const archive = `temporal_cli_1.5.1_${os}_${arch}.tar.gz`;
    const tar = makeArchive({ temporal: FAKE_CLI });
    files.clear();
    files.set(RELEASE_PATH + archive, { body: tar });
    files.set(RELEASE_PATH + 'checksums.txt', { body: Buffer.from(`${sha256(tar)}  ${archive}\n`) });
    // a `go` that builds: `go install` leaves its binary in $GOBIN
    const goodGo = binDir({
      go: '#!/bin/sh\nmkdir -p "$GOBIN" && printf \'#!/bin/sh\\necho built by go\\n\' > "$GOBIN/temporal" && chmod +x "$GOBIN/temporal"\n',
    });
    const built = envWith({ DELEGATE_GO: join(goodGo, 'go') });
    expect(execFileSync(await ensureTemporalCli(silent, built), { encoding: 'utf8' })).toBe('built by go\n');
    expect(requests).toEqual([]);
    // a `go` that fails (no module proxy, say)
    const badGo = binDir({ go: '#!/bin/sh\necho "go: module lookup disabled" >&2\nexit 1\n' });
    const lines: string[] = [];
    const bin = await ensureTemporalCli((l) => lines.push(l), envWith({ DELEGATE_GO: join(badGo, 'go') }));
    expect(execFileSync(bin, { encoding: 'utf8' })).toContain('from the mirror');
    expect(lines.join('\n')).toMatch(
      /go install failed \(exit 1\):\ngo: module lookup disabled\n[\s\S]*Downloading the Temporal CLI v1\.5\.1 instead\./,
    );
  });

  it('with neither Go nor a reachable release, the message says how else to get it', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const e = envWith({ DELEGATE_TOOLS_DOWNLOAD_URL: closed });
    const err = (await ensureTemporalCli(silent, e).catch((x: Error) => x)) as Error;
    expect(err.message).toContain(
      `the Temporal CLI v1.5.1 was not found, Go is not installed to build it, and the download from ${closed}/temporalio/cli/releases/download/v1.5.1/ failed: cannot reach`,
    );
    expect(err.message).toContain('Install one of:');
    expect(err.message).toContain('DELEGATE_TOOLS_DOWNLOAD_URL');
  });

  it('a server on PATH of another version is not used (it would migrate the databases to its schema)', async () => {
    const tool: PinnedTool = {
      label: 'the test server v1.29.1',
      dir: join(mkdtempSync(join(work, 'cache-')), 'server'),
      binaries: ['test-server'],
      pathVersion: '1.29.1',
      go: { packages: [], built: {} },
      release: { repo: 'temporalio/temporal', tag: 'v1.29.1', archive: () => 'none.tar.gz', checksums: ['checksums.txt'], files: {} },
      otherwise: '',
    };
    mkdirSync(tool.dir, { recursive: true });
    writeFileSync(join(tool.dir, 'test-server'), '');
    const old = binDir({ 'test-server': '#!/bin/sh\necho "temporal version 1.28.0"\n' });
    const lines: string[] = [];
    const found = await ensureTool(tool, (l) => lines.push(l), { PATH: old, DELEGATE_GO: 'off' });
    expect(found['test-server']).toBe(join(tool.dir, 'test-server'));
    expect(lines).toEqual([`${join(old, 'test-server')} is "temporal version 1.28.0", not 1.29.1: using the pinned one.`]);
    const right = binDir({ 'test-server': '#!/bin/sh\necho "temporal version 1.29.1"\n' });
    expect((await ensureTool(tool, silent, { PATH: right }))['test-server']).toBe(join(right, 'test-server'));
  });
});
