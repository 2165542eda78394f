/**
 * `docker compose config` accepts docker-compose.yml (Compose v2, or Debian's docker-compose
 * 1.29: the file is kept valid for both), and what compose makes of the env files is what
 * `npm run cluster` makes of them (node:util parseEnv). Needs the tool, not a Docker engine.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { effectiveEnv, readCompose, ROOT } from './compose-file';

/** `docker compose` (v2) or `docker-compose` (v1), whichever answers. */
function composeTool(): string[] | undefined {
  for (const cmd of [['docker', 'compose'], ['docker-compose']]) {
    const r = spawnSync(cmd[0]!, [...cmd.slice(1), 'version'], { encoding: 'utf8' });
    if (r.status === 0) return cmd;
  }
  return undefined;
}

const tool = composeTool();
const SECRET = 'compose-test-webhook-secret';

function compose(args: string[], env: Record<string, string> = {}) {
  // a clean environment: no COMPOSE_* or DELEGATE_* of the caller's shell leaks in
  return spawnSync(tool![0]!, [...tool!.slice(1), '-f', 'docker-compose.yml', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...env },
  });
}

const skipReason = tool ? '' : ' (skipped: neither `docker compose` nor `docker-compose` is installed; on Debian: apt-get install --no-install-recommends docker-compose)';

describe.skipIf(!tool)(`${tool?.join(' ') ?? 'docker compose'} config${skipReason}`, () => {
  it('accepts docker-compose.yml', () => {
    const r = compose(['config', '-q'], { DELEGATE_WEBHOOK_SECRET: SECRET });
    expect(r.status, `docker-compose.yml refused by ${tool!.join(' ')} config:\n${r.stderr}`).toBe(0);
  });

  it('refuses it without the webhook secret', () => {
    const r = compose(['config', '-q']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('set a webhook master secret');
  });

  it("reads the env files as npm run cluster does", () => {
    const r = compose(['config'], { DELEGATE_WEBHOOK_SECRET: SECRET });
    expect(r.status, r.stderr).toBe(0);
    const resolved = (parse(r.stdout) as { services: Record<string, { environment?: Record<string, unknown> }> }).services;
    for (const s of readCompose().values()) {
      if (s.envFiles.length === 0) continue;
      const ours = Object.fromEntries(Object.entries(effectiveEnv(s)).map(([k, v]) => [k, v.replace(/\$\{DELEGATE_WEBHOOK_SECRET[^}]*\}/g, SECRET)]));
      const theirs = Object.fromEntries(Object.entries(resolved[s.name]?.environment ?? {}).map(([k, v]) => [k, v === null ? '' : String(v)]));
      expect(theirs, `services.${s.name}: the environment compose builds from ${s.envFiles.join(', ')} and environment:`).toEqual(ours);
    }
  });
});
