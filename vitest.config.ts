import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/chaos/**', 'node_modules/**'],
    globalSetup: ['test/setup/temporal.ts'],
    // generous: the suite must hold on a loaded 2-core machine; no assertion is about speed
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
