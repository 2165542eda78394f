/** A copy of test/fixtures/scout-tree in a temporary directory, with symlinks made at runtime (never committed). */
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StepRequest } from '../../activities/agents/types';
import { ScoutToolError } from '../../activities/scout/sandbox';

/** The fixture tree's path in the repository. */
export const FIXTURE_TREE = join(import.meta.dirname, '../fixtures/scout-tree');

/** A tree to scout: `root` holds the fixture plus `src/escape` → a secret outside it; `outside` is that secret's directory. */
export function scoutTree(): { root: string; outside: string; cleanup(): void } {
  const base = mkdtempSync(join(tmpdir(), 'scout-tree-'));
  const root = join(base, 'project');
  const outside = join(base, 'outside');
  cpSync(FIXTURE_TREE, root, { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.ts'), 'export const computeBackoffSecret = "do not read";\n');
  symlinkSync(outside, join(root, 'src', 'escape'));
  symlinkSync(join(outside, 'secret.ts'), join(root, 'src', 'secret-link.ts'));
  // a symlink that stays inside: allowed
  symlinkSync(join(root, 'src', 'lib'), join(root, 'lib-link'));
  return { root, outside, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

/** The first attempt of a scout's first step: `question` over the scope `paths` (`extra` sets any other field). */
export function scoutStep(
  question: string,
  paths: string[],
  extra: Partial<Omit<StepRequest, 'params'>> = {},
): StepRequest & { params: { paths: string[] } } {
  return {
    task: { id: 't', question, scope: ['read_file', 'grep'] },
    params: { paths },
    step: 0,
    attempt: 1,
    state: undefined,
    budgetLeft: {},
    stepKey: 'job/t#0',
    sleep: async () => {},
    signal: new AbortController().signal,
    ...extra,
  };
}

/** What `p` rejects with (undefined when it resolves). */
export const rejection = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

/** The error a sandbox call rejects with (fails when it resolves, or rejects with anything but a ScoutToolError). */
export async function refusal(p: Promise<unknown>): Promise<ScoutToolError> {
  const err = await rejection(p);
  if (!(err instanceof ScoutToolError)) throw new Error(`expected a ScoutToolError, got ${String(err)}`);
  return err;
}
