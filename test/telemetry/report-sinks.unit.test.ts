/** A job's batched reports: each line reaches the worker's logger as the workflow's own `log` would write it, each outcome the metrics. */
import type { Logger, LogLevel, LogMetadata } from '@temporalio/common';
import type { WorkflowInfo } from '@temporalio/workflow';
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { reportSinks } from '../../telemetry/report-sinks';
import { createWorkerMetrics } from '../../telemetry/metrics';
import { sdkLogger } from '../../telemetry/logging';

const info = {
  namespace: 'default',
  taskQueue: 'delegate',
  workflowId: 'job/acme/j1/batch-0001',
  runId: 'r1',
  workflowType: 'delegationJob',
} as WorkflowInfo;

describe('the delegateReports sink', () => {
  it('writes each line of a batch with the run’s ids under the line’s own fields, never on replay', () => {
    const seen: [LogLevel, string, LogMetadata | undefined][] = [];
    const at = (level: LogLevel) => (message: string, meta?: LogMetadata) => void seen.push([level, message, meta]);
    const logger: Logger = {
      log: (l, m, meta) => at(l)(m, meta),
      trace: at('TRACE'),
      debug: at('DEBUG'),
      info: at('INFO'),
      warn: at('WARN'),
      error: at('ERROR'),
    };
    const sink = reportSinks(createWorkerMetrics(), logger).delegateReports.batch;
    expect(sink.callDuringReplay).toBe(false);
    void sink.fn(info, {
      lines: [
        { level: 'info', message: 'DELEGATE', attrs: { event: 'DELEGATE', taskId: 't1', agent: 'echo' } },
        { level: 'info', message: 'RESULT', attrs: { event: 'RESULT', taskId: 't1', status: 'failure' } },
        { level: 'warn', message: 'ESCALATE', attrs: { event: 'ESCALATE', taskId: 't1', reason: 'agent_error' } },
      ],
      finished: [],
    });
    expect(seen.map(([l, m]) => `${l} ${m}`)).toEqual(['INFO DELEGATE', 'INFO RESULT', 'WARN ESCALATE']);
    expect(seen[0]![2]).toEqual({
      sdkComponent: 'workflow',
      namespace: 'default',
      taskQueue: 'delegate',
      workflowId: 'job/acme/j1/batch-0001',
      runId: 'r1',
      workflowType: 'delegationJob',
      event: 'DELEGATE',
      taskId: 't1',
      agent: 'echo',
    });
  });

  it('through the worker’s pino logger, a batched line is one JSON line with the job’s ids and the task’s own', () => {
    const out: string[] = [];
    const dest = new Writable({ write: (chunk: Buffer, _e, cb) => (out.push(chunk.toString()), cb()) });
    const sink = reportSinks(createWorkerMetrics(), sdkLogger(pino({ level: 'info' }, dest))).delegateReports.batch;
    void sink.fn(info, {
      lines: [{ level: 'info', message: 'RESULT', attrs: { event: 'RESULT', taskId: 't7', agent: 'echo', status: 'success' } }],
      finished: [],
    });
    const lines = out
      .join('')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    // the job's tenant and id come from its workflow id, the task's id from the line (not the batch's)
    expect(lines[0]).toMatchObject({
      msg: 'RESULT',
      component: 'workflow',
      tenant: 'acme',
      jobId: 'j1',
      taskId: 't7',
      agent: 'echo',
      status: 'success',
    });
  });

  it('counts every finished subtask of the batch in the worker’s metrics', async () => {
    const metrics = createWorkerMetrics();
    const outcome = {
      tenant: 'acme',
      agentId: 'echo',
      status: 'success',
      failureReason: null,
      attempts: 1,
      steps: 1,
      costUsd: 0.25,
      tokens: 10,
      toolCalls: 0,
      latencyMs: 100,
    };
    const silent = sdkLogger(pino({ level: 'silent' }));
    void reportSinks(metrics, silent).delegateReports.batch.fn(info, {
      lines: [],
      finished: [outcome, { ...outcome, status: 'failure', failureReason: 'agent_error', costUsd: 0.5 }],
    });
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/delegate_subtasks_total\{[^}]*status="success"[^}]*\} 1/);
    expect(text).toMatch(/delegate_subtasks_total\{[^}]*status="failure"[^}]*\} 1/);
  });
});
