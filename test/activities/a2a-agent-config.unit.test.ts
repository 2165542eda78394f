/** The `a2a` kind in the agents file: parsed, defaulted and refused like the other kinds (no server). */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAgentsFile } from '../../activities';

const file = (agents: unknown[]) => {
  const path = join(mkdtempSync(join(tmpdir(), 'a2a-agents-')), 'agents.json');
  writeFileSync(path, JSON.stringify({ agents }));
  return path;
};

describe('a2a agents in the agents file', () => {
  it('loads with the HTTP agents limits and a manifest of kind a2a', () => {
    const [def] = loadAgentsFile(
      file([
        {
          kind: 'a2a',
          id: 'travel',
          cardUrl: 'https://travel.example/.well-known/agent-card.json',
          skill: 'itinerary',
          capabilities: ['travel'],
          maxSteps: 2,
        },
      ]),
    );
    expect(def!.manifest).toMatchObject({
      id: 'travel',
      kind: 'a2a',
      capabilities: ['travel'],
      limits: { timeoutSeconds: 300, maxSteps: 2 },
      tools: [],
    });
  });

  it('refuses a card URL that is not http(s) and an unknown field, naming them', () => {
    expect(() => loadAgentsFile(file([{ kind: 'a2a', id: 'x', cardUrl: 'ftp://x/card' }]))).toThrow(/agents\[0\] \("x"\)\.cardUrl/);
    expect(() => loadAgentsFile(file([{ kind: 'a2a', id: 'x', cardUrl: 'https://x/card', url: 'https://x' }]))).toThrow(/url/);
  });
});
