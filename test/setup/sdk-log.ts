/**
 * Where the Temporal SDK's lines go in tests: a log file per run (`test-results/logs/<run>/`),
 * one per test file, never the console. Worker state changes, the workflows' `log` lines,
 * activity failures and core's warnings are thousands of lines per run; they hid the
 * failures a reader looks for. A failing test names its file.
 *
 *   SDK / core ──Logger──▶ test-results/logs/<run>/<test file>.log
 */
import { DefaultLogger, makeTelemetryFilterString, type LogEntry, type RuntimeOptions } from '@temporalio/worker';
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

/** The folder of this run's logs: the global setup test/setup/run-logs.ts names it once per run (DELEGATE_TEST_LOG_DIR). */
export function runLogDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(ROOT, env.DELEGATE_TEST_LOG_DIR ?? 'test-results/logs/manual');
}

/** The log file of a test file (or of anything else named `name`) in this run. */
export function logFileFor(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const rel = name.startsWith('/') ? relative(ROOT, name) : name;
  return join(runLogDir(env), `${rel.replace(/[/\\]/g, '__').replace(/\.ts$/, '')}.log`);
}

/** One line per entry: time, level, message, metadata as JSON. */
function line(e: LogEntry): string {
  const at = new Date(Number(e.timestampNanos / 1_000_000n)).toISOString();
  return `${at} [${e.level}] ${e.message}${e.meta && Object.keys(e.meta).length > 0 ? ` ${JSON.stringify(e.meta)}` : ''}\n`;
}

/** A Temporal logger that appends every line at `level` or above to `file`, and hands it to `also` (if given). */
export function fileLogger(
  file: string,
  level: 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' = 'INFO',
  also?: (e: LogEntry) => void,
): DefaultLogger {
  mkdirSync(dirname(file), { recursive: true });
  return new DefaultLogger(level, (e) => {
    appendFileSync(file, line(e));
    also?.(e);
  });
}

/** Runtime options whose SDK and core lines go to `file` (core at WARN, as the SDK's default). */
export function fileRuntimeOptions(file: string): RuntimeOptions {
  return {
    logger: fileLogger(file),
    telemetryOptions: { logging: { forward: {}, filter: makeTelemetryFilterString({ core: 'WARN', other: 'ERROR' }) } },
  };
}
