import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * Fault-injection suite (`npm run test:chaos`): one scenario file at a time, each with its own
 * processes. `npm run test:cluster` runs it on the production shape's Temporal server on
 * PostgreSQL (DELEGATE_CHAOS_TEMPORAL=cluster), with the tests of `npm run cluster` itself.
 *
 * A scenario runs on both engines only where the engine changes what it tests; the rest on
 * one (CONTRIBUTING.md says why for each). CHAOS_ALL=1 runs every scenario on the chosen engine.
 */
const cluster = process.env.DELEGATE_CHAOS_TEMPORAL === 'cluster';

/** The engines each scenario of test/chaos/ runs on. */
export const SCENARIO_ENGINES: Record<string, ('dev' | 'cluster')[]> = {
  // the engine itself is what is stopped and crashed: SQLite file and dev server, or PostgreSQL and the server's own restart
  'server-restart': ['dev', 'cluster'],
  // a deploy happens on the production shape; the versions and the replay are the worker's, not the engine's
  'rolling-deploy': ['cluster'],
  // the worker dies; the server only times its tasks out and hands them on (the same history service either way)
  'worker-kill': ['dev'],
  // retries are the activity's retry policy, the same on both; the dev server carries the larger load (50 jobs, not 20)
  'flaky-agents': ['dev'],
  // the record's transaction against a worker kill, on both record stores; Temporal only redelivers the activity
  'archive-kill': ['dev'],
  // the API process dies; the job lives in whichever Temporal, untouched
  'api-restart': ['dev'],
  // the API's validation: no workflow starts at all
  'malformed-input': ['dev'],
  // 100 subtasks waiting on workflow conditions, then a worker kill: the wait is the workflow's, held by either engine alike
  'approval-wait': ['dev'],
  // the worker dies mid LLM stream; the heartbeat the server keeps is the same on both engines
  'llm-worker-kill': ['dev'],
};

/** The scenario files to run on `engine`: those the table puts there, and any it does not name yet (on both, so none is skipped). */
export function scenariosOn(engine: 'dev' | 'cluster', all = false): string[] {
  return readdirSync(join(import.meta.dirname, 'test/chaos'))
    .filter((f) => f.endsWith('.test.ts'))
    .filter((f) => all || (SCENARIO_ENGINES[f.replace(/\.test\.ts$/, '')] ?? ['dev', 'cluster']).includes(engine))
    .map((f) => `test/chaos/${f}`);
}
const scenarios = scenariosOn(cluster ? 'cluster' : 'dev', process.env.CHAOS_ALL === '1');

export default defineConfig({
  test: {
    name: cluster ? 'chaos-cluster' : 'chaos',
    include: [...scenarios, ...(cluster ? ['test/cluster/**/*.test.ts'] : [])],
    // the archive scenario runs on both record stores
    globalSetup: ['test/setup/run-logs.ts', 'test/chaos/summary.ts', 'test/setup/postgres.ts'],
    setupFiles: ['test/setup/quiet-sdk.ts'],
    fileParallelism: false,
    reporters: ['default', './test/setup/durations-reporter.ts'],
    testTimeout: 180_000,
    hookTimeout: 150_000,
    pool: 'forks',
  },
});
