/**
 * Providers in the agents file: declared limits reach the agent's gate and its manifest (the
 * queue its steps run on); bad limits, an unknown account, limits beside an account or a pool,
 * and two agents on one key with different limits are refused at start with the agent and field
 * named; a providers entry no agent names is a warning.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAgentsFile } from '../../activities/agents/kinds';

const llm = (id: string, extra: object = {}) => ({
  kind: 'llm',
  id,
  provider: 'openai-compatible',
  baseUrl: 'http://127.0.0.1:9/v1',
  model: 'm',
  apiKey: '${KEY_A}',
  ...extra,
});

/** Loads an agents file with these contents; the warnings it printed. */
function load(file: object) {
  const dir = mkdtempSync(join(tmpdir(), 'providers-'));
  const path = join(dir, 'agents.json');
  writeFileSync(path, JSON.stringify(file));
  const warnings: string[] = [];
  const defs = loadAgentsFile(path, {}, {}, (w) => warnings.push(w));
  return { defs, warnings };
}

describe('providers in the agents file', () => {
  it("gives an account's limits to every agent naming it, and an agent's own limits to it alone", () => {
    const { defs, warnings } = load({
      providers: [{ id: 'openai-main', limits: { requestsPerMinute: 1200, tokensPerMinute: 90_000 } }],
      agents: [
        llm('writer', { account: 'openai-main' }),
        llm('editor', { account: 'openai-main' }),
        llm('solo', { apiKey: '${KEY_B}', limits: { concurrent: 4 } }),
        llm('free', { apiKey: '${KEY_C}' }),
      ],
    });
    expect(warnings).toEqual([]);
    const by = Object.fromEntries(defs.map((d) => [d.manifest.id, d]));
    expect(by.writer.manifest.provider).toBe('openai-main');
    expect(by.writer.service).toMatchObject({ key: 'provider:openai-main', limits: { requestsPerMinute: 1200, tokensPerMinute: 90_000 } });
    expect(by.editor.service?.key).toBe(by.writer.service?.key);
    expect(by.solo.manifest.provider).toBe('solo');
    expect(by.solo.service).toMatchObject({ key: 'provider:solo', limits: { concurrent: 4 } });
    // undeclared: its own key, found by adapting; its steps stay on the tenant's lane
    expect(by.free.manifest.provider).toBeUndefined();
    expect(by.free.service?.limits).toBeUndefined();
    expect(by.free.service?.key).toMatch(/^key:[0-9a-f]{16}$/);
  });

  it.each([
    [{ requestsPerMinute: 0 }, /agents\[0\] \("writer"\)\.limits\.requestsPerMinute/],
    [{ requestsPerMinute: -5 }, /agents\[0\] \("writer"\)\.limits\.requestsPerMinute/],
    [{ requestsPerMinute: 5_000_000 }, /agents\[0\] \("writer"\)\.limits\.requestsPerMinute: .*1000000/],
    [{ concurrent: 2.5 }, /agents\[0\] \("writer"\)\.limits\.concurrent/],
    [{}, /agents\[0\] \("writer"\)\.limits: declare at least one/],
  ])('refuses limits %j naming the agent and field', (limits, message) => {
    expect(() => load({ agents: [llm('writer', { limits })] })).toThrow(message);
  });

  it('refuses an unknown account, an account with limits of its own, a limited agent in a pool, and an entry declared twice', () => {
    expect(() => load({ agents: [llm('writer', { account: 'nope' })] })).toThrow(/agents\[0\] \("writer"\)\.account: .*"nope"/);
    expect(() =>
      load({ providers: [{ id: 'p', limits: { concurrent: 2 } }], agents: [llm('writer', { account: 'p', limits: { concurrent: 1 } })] }),
    ).toThrow(/agents\[0\] \("writer"\)\.limits: .*give one/);
    expect(() => load({ agents: [llm('writer', { limits: { concurrent: 1 }, pool: 'gpu' })] })).toThrow(/\.pool: .*cannot also name pool/);
    expect(() =>
      load({
        providers: [
          { id: 'p', limits: { concurrent: 2 } },
          { id: 'p', limits: { concurrent: 3 } },
        ],
        agents: [llm('writer', { account: 'p' })],
      }),
    ).toThrow(/providers\[1\] \("p"\)\.id: provider "p" is declared twice/);
  });

  it('refuses two agents that call one service with one key under different limits', () => {
    expect(() =>
      load({ agents: [llm('a', { limits: { requestsPerMinute: 60 } }), llm('b', { limits: { requestsPerMinute: 120 } })] }),
    ).toThrow(/agents\[1\] \("b"\)\.limits: agents "a" and "b" call one service with one key but with different limits/);
    // one limited, the other not: the unlimited one would pass the limit by
    expect(() => load({ agents: [llm('a', { limits: { requestsPerMinute: 60 } }), llm('b')] })).toThrow(/agents "a" and "b"/);
    // other keys: no conflict
    expect(() => load({ agents: [llm('a', { limits: { requestsPerMinute: 60 } }), llm('b', { apiKey: '${KEY_B}' })] })).not.toThrow();
  });

  it('warns of a providers entry that no agent names', () => {
    const { warnings } = load({ providers: [{ id: 'unused', limits: { concurrent: 1 } }], agents: [llm('a')] });
    expect(warnings).toEqual([expect.stringContaining('provider "unused" is named by no agent')]);
  });
});

describe('the LLM agents guide', () => {
  it('declares providers as its example says, and the file loads', async () => {
    const { readFileSync } = await import('node:fs');
    const page = readFileSync(new URL('../../docs/guides/llm-agents.md', import.meta.url), 'utf8');
    const section = page.slice(page.indexOf('## Provider limits'));
    const json = /```json\n([\s\S]*?)```/.exec(section)?.[1];
    expect(json).toBeDefined();
    const { defs } = load(JSON.parse(json!));
    const by = Object.fromEntries(defs.map((d) => [d.manifest.id, d]));
    expect(by.writer.manifest.provider).toBe('openai-main');
    expect(by.checker.service?.limits).toEqual({ requestsPerMinute: 1200, tokensPerMinute: 450000, concurrent: 50 });
    expect(by.local.service?.limits).toEqual({ concurrent: 4 });
  });
});
