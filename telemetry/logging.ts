/**
 * One log format for every process: pino's JSON lines, one event a line, flat fields. The
 * Temporal SDK's own logger (workflow `log.*`, activity `log.*`, the worker's lifecycle and
 * the Rust core's forwarded lines) writes through the same pino logger, and every line names
 * the ids it knows: jobId, taskId, agent, attempt and tenant.
 *
 *   workflow log ──sink──┐
 *   activity log ────────┼──> Runtime.logger (sdkLogger) ──> pino ──> stdout (JSON lines)
 *   worker / core ───────┘
 */
import type { Logger as SdkLogger, LogLevel as SdkLogLevel, LogMetadata } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { pino, stdSerializers, type DestinationStream, type Level, type Logger } from 'pino';
import { traceIdOf } from '../core/trace-context';

/** Options of `createLogger`. */
export interface LoggerOptions {
  /** pino's level, or `silent`. */
  level: Level | 'silent';
  /** Which process writes (`api`, `worker`): a field on every line. */
  proc: string;
  /** Where lines go. @default stdout */
  destination?: DestinationStream;
}

/** A process's pino logger: JSON lines with `proc`, ISO times and `err` serialised. */
export function createLogger({ level, proc, destination }: LoggerOptions): Logger {
  return pino({ level, base: { proc }, timestamp: pino.stdTimeFunctions.isoTime, serializers: { err: stdSerializers.err } }, destination);
}

/** The ids a log line may carry. */
export interface LogIds {
  tenant?: string;
  jobId?: string;
  taskId?: string;
  agent?: string;
  attempt?: number;
  /** The job's W3C trace id (from its `traceparent`). */
  traceId?: string;
}

/**
 * The ids a Delegate workflow id spells: `job/<tenant>/<jobId>` for a root job, then
 * `/<taskId>` per level below it (subtasks, nested jobs, batches); nothing for other ids.
 */
export function idsFromWorkflowId(workflowId: unknown): LogIds {
  if (typeof workflowId !== 'string' || !workflowId.startsWith('job/')) return {};
  const [, tenant, jobId, ...below] = workflowId.split('/');
  const last = below.at(-1);
  return { tenant, jobId, ...(last && !last.startsWith('~') ? { taskId: last } : {}) };
}

// what the SDK attaches that says nothing an operator reads (the task token is a credential of the task)
const DROPPED = new Set(['taskToken', 'isLocal']);
const RENAMED: Record<string, string> = { sdkComponent: 'component', workflowRunId: 'runId', agentId: 'agent' };

/** The SDK's metadata as flat pino fields: ids first derived from the workflow id, then what the line says. */
export function flatFields(meta: LogMetadata | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { ...idsFromWorkflowId(meta?.workflowId) };
  // string keys only: the SDK's symbol-keyed timestamp is not a field
  for (const [k, v] of Object.entries(meta ?? {})) {
    if (DROPPED.has(k) || v === undefined) continue;
    out[RENAMED[k] ?? k] = v instanceof Error ? stdSerializers.err(v) : v;
  }
  return out;
}

const LEVELS: Record<SdkLogLevel, Level> = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' };

/** The Temporal SDK's Logger interface over pino: give it to `Runtime.install({ logger })`. */
export function sdkLogger(log: Logger): SdkLogger {
  const write = (level: SdkLogLevel, message: string, meta?: LogMetadata) => {
    const l = LEVELS[level] ?? 'info';
    if (log.isLevelEnabled(l)) log[l](flatFields(meta), message);
  };
  return {
    log: write,
    trace: (m, meta) => write('TRACE', m, meta),
    debug: (m, meta) => write('DEBUG', m, meta),
    info: (m, meta) => write('INFO', m, meta),
    warn: (m, meta) => write('WARN', m, meta),
    error: (m, meta) => write('ERROR', m, meta),
  };
}

/** The ids an activity's input names: agent steps carry the task, the agent and the job's event target; webhooks and archives the tenant and job. */
function idsFromInput(input: unknown): LogIds {
  if (typeof input !== 'object' || input === null) return {};
  const i = input as {
    tenant?: unknown;
    jobId?: unknown;
    agentId?: unknown;
    task?: { id?: unknown };
    events?: { tenant?: unknown; jobId?: unknown };
    traceparent?: unknown;
  };
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const ids: LogIds = {
    tenant: str(i.events?.tenant) ?? str(i.tenant),
    jobId: str(i.events?.jobId) ?? str(i.jobId),
    taskId: str(i.task?.id),
    agent: str(i.agentId),
    traceId: traceIdOf(str(i.traceparent)),
  };
  return Object.fromEntries(Object.entries(ids).filter(([, v]) => v !== undefined));
}

/**
 * Adds the job, task, agent and tenant of an activity's input to every line it logs (the
 * attempt is the SDK's own): the input is seen when the activity starts, and the SDK asks
 * for the attributes at each line.
 */
export const activityLogIds: ActivityInterceptorsFactory = () => {
  let ids: LogIds = {};
  return {
    inbound: {
      execute(input, next) {
        ids = idsFromInput(input.args[0]);
        return next(input);
      },
    },
    outbound: {
      getLogAttributes(attrs, next) {
        return next({ ...attrs, ...ids });
      },
    },
  };
};
