/**
 * Version N+1 of the project for the rolling-deploy scenario: a copy of this checkout's
 * source in a temp folder (node_modules symlinked, not copied) whose subtask workflow
 * differs from version N in its command sequence. Before its next step, a subtask run of
 * N+1 upserts its memo once, `{ deployVersion: 'n+1', n1FromStep }`: one
 * WorkflowPropertiesModified event version N never emits. The change is behind
 * `patched(NEXT_VERSION_PATCH)` (docs/operations/upgrades.md), so runs that began on
 * N replay their old steps without it and take the new branch from the first step N+1
 * executes; `unguarded` leaves the patch out (the control that must break replay).
 *
 * The change is inserted at anchors found in workflows/subtask/index.ts (the loop's
 * orchestration; its rules are the transitions beside it); a refactor that moves
 * them makes `prepareNextVersion` throw, naming the anchor, instead of testing nothing.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

/** The patch id of version N+1's change. */
export const NEXT_VERSION_PATCH = 'rolling-deploy-n1';
/** The memo key (and value) a run sets once N+1's code runs it. */
export const DEPLOY_VERSION_MEMO = 'deployVersion';
/** The value of `DEPLOY_VERSION_MEMO`. */
export const NEXT_VERSION = 'n+1';
/** The memo key holding the step number N+1 first ran the loop at (0: the run began on N+1). */
export const FROM_STEP_MEMO = 'n1FromStep';

/** The file version N+1 changes, relative to the project root. */
export const CHANGED_FILE = 'workflows/subtask/index.ts';

/** Options of `prepareNextVersion`. */
export interface NextVersionOptions {
  /** Leave `patched()` out: the same change as a plain edit, which must break replay. @default false */
  unguarded?: boolean;
  /** The source to copy. @default this checkout */
  from?: string;
}

/** One insertion: `code` goes right before the first occurrence of `anchor`. */
interface Insertion {
  anchor: string;
  code: string;
}

/** Version N+1's edits of the subtask workflow. */
function insertions(unguarded: boolean): Insertion[] {
  const when = unguarded ? `!n1Marked` : `!n1Marked && n1Patched(${JSON.stringify(NEXT_VERSION_PATCH)})`;
  return [
    {
      // right before the step loop: once marked, the run does not mark again
      anchor: '  for (let turn: Turn = BEGIN; ;) {\n',
      code: '  let n1Marked = false;\n',
    },
    {
      // in the step loop, right before a step is issued
      anchor: '    turn = await loop.perform(action);\n',
      code:
        `    // version N+1 (test/chaos/next-version.ts): mark the run once, before the next step\n` +
        `    if (action.kind === 'runStep' && ${when}) {\n` +
        `      n1Marked = true;\n` +
        `      n1UpsertMemo({ ${JSON.stringify(DEPLOY_VERSION_MEMO)}: ${JSON.stringify(NEXT_VERSION)}, ${JSON.stringify(FROM_STEP_MEMO)}: r.steps });\n` +
        `    }\n`,
    },
  ];
}

/** Applies version N+1's edits to the source of the subtask workflow (CHANGED_FILE); throws naming an anchor that is not there. */
export function applyNextVersion(source: string, { unguarded = false }: Pick<NextVersionOptions, 'unguarded'> = {}): string {
  let out = source;
  for (const { anchor, code } of insertions(unguarded)) {
    const at = out.indexOf(anchor);
    if (at < 0) {
      throw new Error(
        `rolling deploy: anchor ${JSON.stringify(anchor.trim())} not found in ${CHANGED_FILE}; update test/chaos/next-version.ts to the refactored workflow`,
      );
    }
    out = out.slice(0, at) + code + out.slice(at);
  }
  // its own import, under names of its own: the file's import list may change without breaking the anchors
  return `import { patched as n1Patched, upsertMemo as n1UpsertMemo } from '@temporalio/workflow';\n${out}`;
}

/** The files of the checkout: tracked and untracked-but-not-ignored (git), or the source folders when `from` is no git checkout. */
function sourceFiles(from: string): string[] {
  try {
    const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: from,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    return out.split('\0').filter((f) => f && f !== 'node_modules' && existsSync(join(from, f)) && statSync(join(from, f)).isFile());
  } catch {
    const dirs = ['activities', 'api', 'client', 'record', 'schemas', 'telemetry', 'workers', 'workflows', 'scripts', 'agents'];
    return [...dirs.filter((d) => existsSync(join(from, d))), 'package.json', 'tsconfig.json'].filter((f) => existsSync(join(from, f)));
  }
}

/**
 * Copies the project's source into a new temp folder, applies version N+1's change to its
 * subtask workflow and returns the folder: start a worker there (`ChaosStack.startWorker(i,
 * env, { root })`) and it bundles the changed workflows from its own `workflows/`.
 */
export function prepareNextVersion(opts: NextVersionOptions = {}): string {
  const from = opts.from ?? projectRoot;
  const dest = mkdtempSync(join(tmpdir(), `delegate-next-version${opts.unguarded ? '-unguarded' : ''}-`));
  for (const f of sourceFiles(from)) {
    mkdirSync(dirname(join(dest, f)), { recursive: true });
    cpSync(join(from, f), join(dest, f), { recursive: true });
  }
  symlinkSync(realpathSync(join(from, 'node_modules')), join(dest, 'node_modules'), 'dir');
  const file = join(dest, CHANGED_FILE);
  writeFileSync(file, applyNextVersion(readFileSync(file, 'utf8'), opts));
  return dest;
}
