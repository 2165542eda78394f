/**
 * A vitest reporter that writes how long each test file took to `test-results/durations.json`
 * (git-ignored). Runs add to the file: an entry is keyed by project and file, so `npm test`,
 * `npm run test:soak` and the chaos runs of one CI job end up in one list, which
 * `npm run --silent test:durations` prints (the slowest first). CI deletes it when it starts.
 *
 *   vitest run ──onTestRunEnd──▶ merge { project, file, ms } ──▶ test-results/durations.json
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/** Where the durations are written, relative to the repository. */
export const DURATIONS_FILE = resolve(import.meta.dirname, '../../test-results/durations.json');

/** One test file's run. */
export interface FileDuration {
  project: string;
  /** The file, relative to the repository. */
  file: string;
  /** Wall time of the file: its import, setup, tests and hooks. */
  ms: number;
  /** Of which its tests and hooks (what vitest's own reporters print per file). */
  testsMs: number;
  state: string;
  tests: number;
  /** When the run that measured it ended (ISO). */
  at: string;
}

/** What the file holds: one entry per project and file, and the wall time of each run that wrote it. */
export interface DurationsFile {
  files: FileDuration[];
  runs: { projects: string[]; files: number; wallMs: number; at: string }[];
}

/** The durations written so far (empty when there is no file yet or it is unreadable). */
export function readDurations(file = DURATIONS_FILE): DurationsFile {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<DurationsFile>;
    return { files: parsed.files ?? [], runs: parsed.runs ?? [] };
  } catch {
    return { files: [], runs: [] };
  }
}

/** The entry of one finished module. */
export function fileDuration(m: TestModule, root: string, at: string): FileDuration {
  const d = m.diagnostic();
  return {
    project: m.project.name || 'default',
    file: relative(root, m.moduleId),
    ms: Math.round(d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration),
    testsMs: Math.round(d.duration),
    state: m.state(),
    tests: [...m.children.allTests()].length,
    at,
  };
}

/** Writes each test file's duration (see the module comment). */
export default class DurationsReporter implements Reporter {
  private started = Date.now();
  private root = process.cwd();

  onInit(vitest: { config: { root: string } }) {
    this.started = Date.now();
    this.root = vitest.config.root;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    if (modules.length === 0) return;
    const at = new Date().toISOString();
    const mine = modules.map((m) => fileDuration(m, this.root, at));
    const keys = new Set(mine.map((f) => `${f.project}\0${f.file}`));
    const before = readDurations();
    const files = [...before.files.filter((f) => !keys.has(`${f.project}\0${f.file}`)), ...mine].sort((a, b) => b.ms - a.ms);
    const run = { projects: [...new Set(mine.map((f) => f.project))].sort(), files: mine.length, wallMs: Date.now() - this.started, at };
    mkdirSync(dirname(DURATIONS_FILE), { recursive: true });
    // written whole, then renamed: a reader never sees half a file
    const tmp = `${DURATIONS_FILE}.${process.pid}`;
    writeFileSync(tmp, `${JSON.stringify({ files, runs: [...before.runs, run] } satisfies DurationsFile, null, 2)}\n`);
    renameSync(tmp, DURATIONS_FILE);
  }
}
