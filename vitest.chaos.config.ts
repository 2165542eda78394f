import { defineConfig } from 'vitest/config';

/** Fault-injection suite (`npm run test:chaos`): one scenario file at a time, each with its own processes. */
export default defineConfig({
  test: {
    include: ['test/chaos/**/*.test.ts'],
    globalSetup: ['test/chaos/summary.ts'],
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 150_000,
    pool: 'forks',
  },
});
