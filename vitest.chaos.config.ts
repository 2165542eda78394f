import { defineConfig } from 'vitest/config';

/**
 * Fault-injection suite (`npm run test:chaos`): one scenario file at a time, each with its own
 * processes. `npm run test:cluster` runs it on the production shape's Temporal server on
 * PostgreSQL (DELEGATE_CHAOS_TEMPORAL=cluster), with the tests of `npm run cluster` itself.
 */
const cluster = process.env.DELEGATE_CHAOS_TEMPORAL === 'cluster';

export default defineConfig({
  test: {
    include: ['test/chaos/**/*.test.ts', ...(cluster ? ['test/cluster/**/*.test.ts'] : [])],
    // the archive scenario runs on both record stores
    globalSetup: ['test/chaos/summary.ts', 'test/setup/postgres.ts'],
    fileParallelism: false,
    reporters: ['default', './test/setup/durations-reporter.ts'],
    testTimeout: 180_000,
    hookTimeout: 150_000,
    pool: 'forks',
  },
});
