/**
 * Global setup: names this run's log folder (test/setup/sdk-log.ts) once per vitest process, in
 * DELEGATE_TEST_LOG_DIR, which the test processes inherit; keeps the ten newest runs' folders.
 * Each project of servers lists it first, so the folder exists before anything logs.
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { runLogDir } from './sdk-log';

/** Run folders kept, the new one included. */
const KEEP = 10;

export default function setup(project: TestProject) {
  if (process.env.DELEGATE_TEST_LOG_DIR) return;
  const base = resolve(import.meta.dirname, '../../test-results/logs');
  mkdirSync(base, { recursive: true });
  const old = readdirSync(base).sort();
  for (const d of old.slice(0, Math.max(0, old.length - (KEEP - 1)))) rmSync(join(base, d), { recursive: true, force: true });
  process.env.DELEGATE_TEST_LOG_DIR = join(
    'test-results/logs',
    `${new Date().toISOString().replace(/[:.]/g, '-')}-${project.name || 'run'}`,
  );
  mkdirSync(runLogDir(), { recursive: true });
}
