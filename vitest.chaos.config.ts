import { defineConfig } from 'vitest/config';

/** Fault-injection suite (`npm run test:chaos`): one scenario file at a time, each with its own processes. */
export default defineConfig({
  test: {
    include: ['test/chaos/**/*.test.ts'],
    // the archive scenario runs on both record stores
    globalSetup: ['test/chaos/summary.ts', 'test/setup/postgres.ts'],
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 150_000,
    pool: 'forks',
  },
});
