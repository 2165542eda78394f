import { defineConfig } from 'vitest/config';

/**
 * Projects that say what they need (CONTRIBUTING.md lists them with their times):
 *
 *   unit         *.unit.test.ts             nothing: pure modules
 *   record       test/record/*.test.ts      PostgreSQL (and SQLite files): the record on both stores
 *   replay       test/**\/replay*.test.ts    nothing: recorded histories against this checkout's bundle
 *   integration  every other *.test.ts      the shared Temporal dev server, worker, example agent, fake LLM, PostgreSQL
 *   soak         *.soak.test.ts             the shared dev server; minutes each (`npm run test:soak`)
 *
 * `npm test` runs the first four, CI all five; the chaos suite has its own config.
 */
const SOAK = 'test/**/*.soak.test.ts';
const REPLAY = 'test/**/replay*.test.ts';
const RECORD = 'test/record/**/*.test.ts';
const UNIT = 'test/**/*.unit.test.ts';
/** What a project of real servers shares: the scout reads only a configured root, the tests' is the repository (its dot-entries stay denied). */
const serverEnv = { DELEGATE_SCOUT_ROOT: process.cwd() };
/** The SDK's and the workers' lines go to test-results/logs/<run>/, one file per test file, not the console. */
const quiet = ['test/setup/quiet-sdk.ts'];
const RUN_LOGS = 'test/setup/run-logs.ts';

export default defineConfig({
  test: {
    // each file's duration goes to test-results/durations.json (`npm run --silent test:durations`)
    reporters: ['default', './test/setup/durations-reporter.ts'],
    // files at once: the server projects mostly wait on Temporal, not the CPU, so three share two
    // cores well (vitest's default on 2 cores is one at a time); DELEGATE_TEST_WORKERS changes it
    maxWorkers: Number(process.env.DELEGATE_TEST_WORKERS ?? 3),
    projects: [
      {
        test: {
          name: 'unit',
          include: [UNIT],
          testTimeout: 60_000,
          // pure modules: a worker runs its files one after the other on one module cache, so zod, Ajv,
          // the SDKs and our own modules load once per worker, not once per file (half the project's CPU)
          isolate: false,
        },
      },
      {
        test: {
          name: 'record',
          include: [RECORD],
          exclude: [UNIT, SOAK],
          // a throwaway PostgreSQL (or DELEGATE_TEST_PG_URL); no Temporal
          globalSetup: ['test/setup/postgres.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          pool: 'forks',
          // no Temporal Runtime of a file's own: the files share their worker's module cache, as unit's do
          isolate: false,
        },
      },
      {
        test: {
          name: 'replay',
          setupFiles: quiet,
          include: [REPLAY],
          exclude: [UNIT, SOAK],
          // replay needs no server: Worker.runReplayHistories runs the bundle in process
          globalSetup: [RUN_LOGS],
          testTimeout: 180_000,
          hookTimeout: 120_000,
          pool: 'forks',
        },
      },
      {
        test: {
          name: 'integration',
          setupFiles: quiet,
          include: ['test/**/*.test.ts'],
          exclude: [UNIT, SOAK, REPLAY, RECORD, 'test/chaos/**', 'test/cluster/**', 'node_modules/**'],
          // PostgreSQL for the tests that run the record on both stores through the API (test/api/list, test/api/record)
          globalSetup: [RUN_LOGS, 'test/setup/temporal.ts', 'test/setup/postgres.ts'],
          env: serverEnv,
          // generous: the suite must hold on a loaded 2-core machine; no assertion is about speed
          testTimeout: 180_000,
          hookTimeout: 120_000,
          pool: 'forks',
          // a worker runs its files one after the other on one module cache: each file loaded the API, the
          // activities, the record and the SDKs afresh (about 3 s of CPU). A file's own Temporal Runtime still
          // works: the SDK shuts the Runtime down when a file's last connection and worker close
          isolate: false,
        },
      },
      {
        test: {
          name: 'soak',
          setupFiles: quiet,
          include: [SOAK],
          exclude: ['test/chaos/**', 'test/cluster/**', 'node_modules/**'],
          globalSetup: [RUN_LOGS, 'test/setup/temporal.ts'],
          // finalResult waits up to the test's timeout (the 600-stage pipeline gives its own)
          env: { ...serverEnv, DELEGATE_TEST_RESULT_WAIT_MS: '870000' },
          testTimeout: 900_000,
          hookTimeout: 120_000,
          pool: 'forks',
          // one at a time, after the other projects when run with them: each loads the dev server on its own
          // (200 queued steps, 600 stages, 600 children), and the priority test measures a busy worker
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
