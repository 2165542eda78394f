/**
 * Versions side by side in the agents file: which version a reference picks (newest compatible,
 * deprecated ones only when nothing else matches or when pinned), the id a run names it by, and
 * the file's refusals in its established style (`agents[1] ("x").version: …`).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgentRegistry } from '../../activities';
import { loadAgentsFile } from '../../activities/agents/kinds';
import { pickVersion, newestFirst, parseAgentRef } from '../../activities/agents/versions';
import { deprecationWarning } from '../../core/routing';

const http = (version: string, extra: object = {}) => ({
  id: 'x',
  version,
  url: `http://127.0.0.1:9/${version}`,
  capabilities: ['c'],
  ...extra,
});

function load(agents: object[]) {
  const dir = mkdtempSync(join(tmpdir(), 'versions-'));
  const path = join(dir, 'agents.json');
  writeFileSync(path, JSON.stringify({ agents }));
  return loadAgentsFile(path, {}, {}, () => {});
}

describe('picking a version', () => {
  const entries = newestFirst([
    { version: '1.4.0', deprecated: 'use ^2' },
    { version: '2.0.0' },
    { version: '2.3.0' },
    { version: '3.0.0', deprecated: true },
    { version: '2.4.0-rc.1' },
  ]);
  const pick = (range?: string) => pickVersion(entries, range)?.version;

  it('a bare id: the newest not deprecated (a prerelease is newer than 2.3.0 and not deprecated)', () => {
    expect(pick()).toBe('2.4.0-rc.1');
  });
  it('a range: the newest compatible not deprecated; semver ranges leave prereleases out', () => {
    expect(pick('^2')).toBe('2.3.0');
    expect(pick('~2.0')).toBe('2.0.0');
    expect(pick('>=1 <2.1')).toBe('2.0.0');
  });
  it('a deprecated version when only deprecated ones match, or when pinned exactly', () => {
    expect(pick('^1')).toBe('1.4.0');
    expect(pick('3')).toBe('3.0.0');
    expect(pick('1.4.0')).toBe('1.4.0');
  });
  it('nothing for a range no version matches, or one that is no range', () => {
    expect(pick('^9')).toBeUndefined();
    expect(pick('not a range!')).toBeUndefined();
  });
  it('splits a reference at its @', () => {
    expect(parseAgentRef('x@^2')).toEqual({ id: 'x', range: '^2' });
    expect(parseAgentRef('x')).toEqual({ id: 'x' });
  });
});

describe('the registry over several versions', () => {
  const registry = createAgentRegistry(load([http('1.0.0', { deprecated: 'use 2' }), http('2.0.0'), http('2.1.0')]));

  it('names each version by its pinned id, and resolves references to them', () => {
    expect(registry.get('x')?.manifest.id).toBe('x@2.1.0');
    expect(registry.get('x@~2.0')?.manifest.id).toBe('x@2.0.0');
    expect(registry.get('x@2.0.0')?.manifest.id).toBe('x@2.0.0');
    expect(registry.get('x@^1')?.manifest).toMatchObject({ id: 'x@1.0.0', deprecated: 'use 2' });
    expect(registry.get('x@^3')).toBeUndefined();
  });
  it('lists every version under its id, newest first, and routes a capability to the newest', () => {
    expect(registry.list().map((m) => `${m.id} ${m.version}`)).toEqual(['x 2.1.0', 'x 2.0.0', 'x 1.0.0']);
    expect(registry.versionsOf('x').map((v) => v.version)).toEqual(['2.1.0', '2.0.0', '1.0.0']);
    expect(registry.candidates('c').map((d) => d.manifest.id)).toEqual(['x@2.1.0']);
  });
  it('an id with one version keeps its bare id', () => {
    const one = createAgentRegistry(load([http('1.2.3')]));
    expect(one.get('x@^1')?.manifest.id).toBe('x');
  });
  it('the warning of a deprecated version names the id and the version', () => {
    expect(deprecationWarning({ id: 'x@1.0.0', version: '1.0.0', deprecated: 'use 2' })).toBe(
      'agent "x" version 1.0.0 is deprecated: use 2',
    );
    expect(deprecationWarning({ id: 'x', version: '1.0.0', deprecated: true })).toBe('agent "x" version 1.0.0 is deprecated');
    expect(deprecationWarning({ id: 'x', version: '1.0.0' })).toBeUndefined();
  });
});

describe('the agents file refuses', () => {
  it('one version of an id twice, and a version that is not semantic when several share the id', () => {
    expect(() => load([http('1.0.0'), http('1.0.0'), http('latest')])).toThrow(
      /agents\[1\] \("x"\)\.version: version 1\.0\.0 of "x" is declared twice \(also agents\[0\]\)\n {2}agents\[2\] \("x"\)\.version: "latest" is not a semantic version/,
    );
  });
  it('a deprecated that is neither true/false nor a reason', () => {
    expect(() => load([http('1.0.0', { deprecated: 3 })])).toThrow(/agents\[0\] \("x"\)\.deprecated: /);
  });
});
