import { defineConfig } from 'vitest/config';

/**
 * Two projects: `unit` (pure modules, no server, seconds) and `integration` (a real Temporal
 * dev server the global setup starts). `npm test` runs both; `npm run test:unit` the first.
 */
export default defineConfig({
  test: {
    // each file's duration goes to test-results/durations.json (`npm run --silent test:durations`)
    reporters: ['default', './test/setup/durations-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.unit.test.ts'],
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.unit.test.ts', 'test/chaos/**', 'test/cluster/**', 'node_modules/**'],
          // PostgreSQL for the record's tests (test/record/), which run on both stores
          globalSetup: ['test/setup/temporal.ts', 'test/setup/postgres.ts'],
          // the scout reads only a configured root: the tests' is the repository (its dot-entries stay denied)
          env: { DELEGATE_SCOUT_ROOT: process.cwd() },
          // generous: the suite must hold on a loaded 2-core machine; no assertion is about speed
          testTimeout: 180_000,
          hookTimeout: 120_000,
          pool: 'forks',
        },
      },
    ],
  },
});
