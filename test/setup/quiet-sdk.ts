/**
 * Setup file of the projects that run Temporal workers or clients in the test process: the
 * SDK's Runtime, when a test file does not install its own, logs to this file's log
 * (test/setup/sdk-log.ts) instead of the console; a failing test says where the logs are.
 */
import { Runtime } from '@temporalio/worker';
import { existsSync } from 'node:fs';
import { beforeEach, expect } from 'vitest';
import { fileRuntimeOptions, logFileFor } from './sdk-log';

const file = logFileFor(expect.getState().testPath ?? `pid-${process.pid}`);
const shared = logFileFor('shared-worker');
// the options Runtime.instance() creates the runtime with when nothing installed one first
// (a test file's own Runtime.install still wins: it runs before any worker or connection)
Runtime.defaultOptions = fileRuntimeOptions(file);

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => {
    const logs = [file, shared].filter((f) => existsSync(f));
    if (logs.length > 0) console.error(`the workers' and the SDK's log lines of this run: ${logs.join(', ')}`);
  });
});
