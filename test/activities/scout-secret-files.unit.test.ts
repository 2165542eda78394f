/**
 * Audit finding #4, from the attacker's side: the deny-list was a list of exact names, and
 * another tenant's scout read `api-key.bak`, `config.env.local` and `service-account.json`. A
 * file is now denied by what it is (name patterns on every entry of its path), a file holding a
 * private key is refused whatever its name, key-shaped strings come back redacted, and the
 * operator's allow-list opens what a pattern closes (but never a private key).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/config';
import { runHostTool } from '../../activities/scout/host-tools';
import { createSandbox, resolveScope } from '../../activities/scout/sandbox';
import { isDeniedPath, isSecretKey, parseScoutAllow, redactSecrets, scoutAllowList } from '../../activities/scout/secret-files';
import { refusal } from './scout-tree';

/** The secret every denied file holds: it must never come back. */
const KEY = 'dlg_0123456789abcdef0123456789abcdef';
/** The audit's eleven names: every one was readable before (11/11), none is now. */
const AUDIT = [
  'api-key.bak',
  'config.env.local',
  'service-account.json',
  'steps.log',
  'terraform.tfstate',
  'kubeconfig',
  'htpasswd',
  'server.crt',
  'server.pem.1',
  'delegate.db.bak',
  'record.db.1',
];
/** More of the same families, some in subdirectories and under denied directories. */
const MORE = [
  '.env.production',
  'deploy/prod.env',
  'deploy/api.env.example',
  'tls/client.PEM',
  'tls/ca.cer',
  'tls/store.p12',
  'tls/app.keystore',
  'home/id_ed25519.pub',
  'home/work.ppk',
  'gcp/service_account-prod.json',
  'aws/credentials.ini',
  'terraform/terraform.tfstate.backup',
  'terraform/prod.tfvars',
  'kube/kubeconfig-staging.yaml',
  'web/.htpasswd',
  'home/.aws/config',
  'home/.kube/config',
  'home/.docker/config.json',
  'home/.npmrc',
  'home/.netrc',
  'home/.pgpass',
  'secrets/readme.txt',
  'config/settings.yaml.orig',
  'config/settings.yaml~',
  'config/.settings.yaml.swp',
  'data/record.sqlite3',
  'data/delegate.db-wal',
  'logs/steps.log.1',
  'logs/worker.log-20261201',
  'github-token',
  'slack_api_key.txt',
  'passwords.csv',
  'db-password',
  'client-secret.json',
  'private_key.txt',
];
/** Code and docs that only mention a secret, and ordinary files: readable. */
const ALLOWED = [
  'src/tokens.ts',
  'src/api-key.ts',
  'src/webhook-secret.ts',
  'src/password-reset.py',
  'src/env.config.ts',
  'src/record.db.ts',
  'src/logger.ts',
  'src/keyboard.ts',
  'docs/managing-secrets.md',
  'docs/api-keys.md',
  'tokenizer.json',
  'package.json',
  'db/schema.sql',
  'catalog.yaml',
];

const base = mkdtempSync(join(tmpdir(), 'scout-secret-files-'));
const root = join(base, 'tree');
const put = (rel: string, text: string) => {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
};
for (const name of [...AUDIT, ...MORE]) put(name, `tenant default key ${KEY}\n`);
for (const name of ALLOWED) put(name, `export const marker = 'harmless'; // readable\n`);
const PRIVATE_KEY = [
  '-----BEGIN OPENSSH PRIVATE KEY-----',
  'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW',
  '-----END OPENSSH PRIVATE KEY-----',
].join('\n');
put('notes.txt', `deploy notes: the readable part\n\n${PRIVATE_KEY}\n`);
put('docs/putty.txt', 'PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPrivate-Lines: 1\nAAAAIB\n');
const AWS = 'AKIAIOSFODNN7EXAMPLE';
put(
  'src/config.ts',
  [
    `export const awsKeyId = '${AWS}'; // the key`,
    `const anthropic = 'sk-ant-api03-AbCdEf0123456789GhIjKl';`,
    `const github = 'ghp_0123456789abcdefABCDEF0123456789abcd';`,
    `const slack = 'xoxb-1234567890-abcdefghij';`,
    `const google = 'AIzaSyA0123456789abcdefghijklmnopqrstuv';`,
    `const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';`,
    `const token = await fetchToken(); // an expression: kept`,
  ].join('\n'),
);
put('config/app.yaml', `db:\n  user: app\n  password: hunter2-prod\napi_key: ${AWS}\nmax_tokens: 500\n`);
put('fixtures/sample.log', 'a sample log the operator exposes\n');
put('fixtures/secrets/example.txt', 'an example the operator exposes\n');
put('fixtures/certs/test.pem', 'a test certificate the operator exposes\n');
put('fixtures/certs/leaked.pem', `${PRIVATE_KEY}\n`);
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** What a model sees of a tool call: the host tool's text answer. */
const tool = (sb: ReturnType<typeof createSandbox>, name: 'read_file' | 'grep', args: object) => runHostTool(sb, name, args);

describe('the scout denies a file by what it is', () => {
  it('denies every name of the audit, and more of each family, wherever it lies', () => {
    for (const p of [...AUDIT, ...MORE, ...AUDIT.map((n) => `deep/er/${n}`)]) expect(isDeniedPath(p, []), p).toBe(true);
    // case does not matter, and a denied directory denies what is inside it
    for (const p of ['API-KEY.BAK', 'Config.Env.Local', 'secrets/notes.md', 'terraform.tfstate.d/x.md', 'logs.log/readme.md'])
      expect(isDeniedPath(p, []), p).toBe(true);
  });

  it('keeps code and docs that only mention a secret readable', () => {
    for (const p of ALLOWED) expect(isDeniedPath(p, []), p).toBe(false);
  });

  it('another tenant asking for each of them gets a refusal and not one byte of the key, by scope, read_file or grep', async () => {
    const sb = createSandbox(root, ['.'], []);
    for (const p of [...AUDIT, ...MORE]) {
      expect(await resolveScope(root, [p], []), p).toMatchObject({ ok: false, reason: 'path_denied' });
      const answer = await tool(sb, 'read_file', { path: p });
      expect(answer, p).toMatch(/^error: denied: /);
      expect(answer).not.toContain(KEY);
    }
    expect(await tool(sb, 'grep', { pattern: KEY, literal: true })).toBe('no matches');
    expect(await tool(sb, 'grep', { pattern: 'tenant default' })).toBe('no matches');
    expect(await tool(sb, 'grep', { pattern: 'x', path: 'secrets' })).toMatch(/^error: denied: /);
    for (const p of ALLOWED) expect((await sb.readFile(p)).lines[0], p).toContain('harmless');
  });
});

describe('the scout sniffs what it reads', () => {
  it('refuses a notes.txt that holds a private key, and a PuTTY key file, whole: grep does not search them', async () => {
    const sb = createSandbox(root, ['.'], []);
    expect(isDeniedPath('notes.txt', [])).toBe(false);
    for (const p of ['notes.txt', 'docs/putty.txt']) {
      const err = await refusal(sb.readFile(p));
      expect(err.code, p).toBe('denied');
      expect(err.message).toContain('holds a private key');
    }
    expect((await sb.grep('readable part')).matches).toEqual([]);
    expect((await sb.grep('b3BlbnNzaC1rZXkt')).matches).toEqual([]);
    expect(sb.inspected()).toEqual([]);
  });

  it('returns an AKIA key (and the other key shapes) in an allowed file redacted, to read_file and to grep', async () => {
    const sb = createSandbox(root, ['src', 'config'], []);
    const read = await tool(sb, 'read_file', { path: 'src/config.ts' });
    expect(read).toContain("export const awsKeyId = '[redacted]'; // the key");
    expect(read).toContain('const token = await fetchToken(); // an expression: kept');
    for (const secret of [AWS, 'sk-ant-', 'ghp_', 'xoxb-', 'AIzaSy', 'eyJhbGci']) expect(read).not.toContain(secret);
    expect((await sb.readFile('src/config.ts')).totalLines).toBe(7);
    const yaml = await tool(sb, 'read_file', { path: 'config/app.yaml' });
    expect(yaml).toMatch(/password: \[redacted\]\n.*api_key: \[redacted\]\n.*max_tokens: 500/);
    expect(yaml).not.toContain('hunter2');
    // grep searches the redacted text: the key is not there to find, so no pattern can probe it
    expect((await sb.grep('awsKeyId')).matches).toEqual([
      { file: 'src/config.ts', line: 1, text: "export const awsKeyId = '[redacted]'; // the key" },
    ]);
    for (const probe of [AWS, 'AKIA', 'AKIAIOSF[A-Z]+', 'hunter2']) expect((await sb.grep(probe)).matches, probe).toEqual([]);
  });

  it('redacts values of secret keys, not of keys that only mention one; bare values only outside code', () => {
    expect(['DB_PASSWORD', 'apiKey', 'api-key', 'aws_secret_access_key', 'clientSecret', 'GITHUB_TOKEN'].every(isSecretKey)).toBe(true);
    expect(['apiKeyHeader', 'tokenizer', 'maxTokens', 'password_hash', 'keyboard'].some(isSecretKey)).toBe(false);
    expect(redactSecrets('PASSWORD=correct horse battery\n"token": "abc"', 'deploy.sh')).toBe('PASSWORD=[redacted]\n"token": "[redacted]"');
    expect(redactSecrets("password = input\nconst secret = 's3cr3t'", 'a.py')).toBe("password = input\nconst secret = '[redacted]'");
    // a harmless assignment before a secret one on the same line does not hide it
    expect(redactSecrets('user=bob password=hunter2', 'notes.txt')).toBe('user=bob password=[redacted]');
    expect(redactSecrets("const a = 1, token = 'abc'", 'a.ts')).toBe("const a = 1, token = '[redacted]'");
    expect(redactSecrets('{"name": 5, "password": "x y"}', 'a.json')).toBe('{"name": 5, "password": "[redacted]"}');
  });
});

describe("the operator's allow-list", () => {
  const ALLOW = ['fixtures/*.log', 'fixtures/secrets/**', '*.pem'];

  it('opens what it names and nothing more: a name glob lifts a name, not its denied directory', () => {
    expect(isDeniedPath('fixtures/sample.log', ALLOW)).toBe(false);
    expect(isDeniedPath('steps.log', ALLOW)).toBe(true);
    expect(isDeniedPath('fixtures/secrets/example.txt', ALLOW)).toBe(false);
    expect(isDeniedPath('fixtures/certs/test.pem', ALLOW)).toBe(false);
    expect(isDeniedPath('secrets/test.pem', ALLOW)).toBe(true);
    expect(isDeniedPath('api-key.bak', ALLOW)).toBe(true);
  });

  it('makes allowed files readable and searchable; a private key stays refused', async () => {
    const sb = createSandbox(root, ['fixtures'], ALLOW);
    expect((await sb.readFile('fixtures/sample.log')).lines[0]).toBe('a sample log the operator exposes');
    expect((await sb.grep('the operator exposes')).matches.map((m) => m.file)).toEqual([
      'fixtures/certs/test.pem',
      'fixtures/sample.log',
      'fixtures/secrets/example.txt',
    ]);
    expect((await refusal(sb.readFile('fixtures/certs/leaked.pem'))).message).toContain('holds a private key');
    expect((await refusal(createSandbox(root, ['.'], ['notes.txt']).readFile('notes.txt'))).code).toBe('denied');
  });

  it('is read from DELEGATE_SCOUT_ALLOW, relative globs only, and the configuration refuses a bad one naming it', () => {
    expect(scoutAllowList({ DELEGATE_SCOUT_ALLOW: ' fixtures/*.log, ./docs/** ,' })).toEqual(['fixtures/*.log', 'docs/**']);
    expect(scoutAllowList({})).toEqual([]);
    expect(() => parseScoutAllow('/etc/*')).toThrow(/DELEGATE_SCOUT_ALLOW/);
    expect(() => parseScoutAllow('a/../../x')).toThrow(/DELEGATE_SCOUT_ALLOW/);
    expect(loadConfig({ DELEGATE_SCOUT_ALLOW: 'fixtures/*.log,*.pem' }).DELEGATE_SCOUT_ALLOW).toEqual(['fixtures/*.log', '*.pem']);
    expect(() => loadConfig({ DELEGATE_SCOUT_ALLOW: '../up' })).toThrow(/DELEGATE_SCOUT_ALLOW/);
  });
});
