import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRegistry } from '../../activities';

const llm = {
  kind: 'llm',
  id: 'player',
  baseUrl: 'http://127.0.0.1:9/v1',
  model: 'm',
  tools: [{ name: 'search', url: 'http://127.0.0.1:9/search' }],
};
const http = { id: 'hook', url: 'http://127.0.0.1:9/hook' };
const role = {
  id: 'review',
  persona: 'p',
  agent: 'player',
  requiredSkills: ['checklist'],
  tools: ['search'],
  outputKinds: { code_review: ['review'] },
};

function agentsFile(content: object): string {
  const dir = mkdtempSync(join(tmpdir(), 'roles-'));
  writeFileSync(join(dir, 'style.md'), 'Be brief.');
  const file = join(dir, 'agents.json');
  writeFileSync(file, JSON.stringify(content));
  return file;
}

describe('roles in the agents file', () => {
  it('loads roles and skills (inline, or a file beside the agents file)', () => {
    const registry = loadRegistry(
      agentsFile({
        agents: [llm],
        skills: [
          { id: 'checklist', title: 'C', text: 'check' },
          { id: 'style', title: 'S', path: 'style.md' },
        ],
        roles: [role],
      }),
    );
    expect(registry.roles?.role('review')).toMatchObject({ agent: 'player', maxOutputTokens: 16_384, maxDepth: 1 });
    expect(registry.roles?.skill('style')).toEqual({ id: 'style', title: 'S', text: 'Be brief.' });
  });

  it('refuses at start with errors that name the role (or skill) and the field', () => {
    const file = agentsFile({
      agents: [llm, http],
      skills: [
        { id: 'checklist', title: 'C', text: 'check' },
        { id: 'gone', title: 'G', path: 'missing.md' },
      ],
      roles: [
        { ...role, requiredSkills: ['checklist', 'nope'], tools: ['search', 'shell'] },
        { ...role, id: 'ghost', agent: 'nobody' },
        { ...role, id: 'hooked', agent: 'hook' },
      ],
    });
    let message = '';
    try {
      loadRegistry(file);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(
      message
        .split('\n')
        .slice(1)
        .map((l) => l.trim()),
    ).toEqual([
      expect.stringMatching(/^skill "gone": path: cannot read missing\.md/),
      'role "review": requiredSkills[1]: unknown skill "nope"',
      'role "review": tools[1]: unknown tool "shell": agent "player" has search',
      'role "ghost": agent: unknown agent "nobody"',
      'role "hooked": agent: agent "hook" is a http agent; a role is played by an llm agent',
      expect.stringMatching(/^role "hooked": tools\[0\]: unknown tool "search"/),
    ]);
  });
});
