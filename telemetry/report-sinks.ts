/**
 * The worker's side of the `delegateReports` sink (contracts/sinks.ts): a job's batch
 * of one activation. Each line is written through the SDK's logger as the workflow's own `log`
 * writes it — the workflow's ids and `sdkComponent: workflow`, then the line's fields — so a
 * batched line reads exactly like any other workflow line (telemetry/logging.ts flattens them the
 * same way); each finished subtask is counted in the worker's metrics.
 */
import { Runtime, type InjectedSinks } from '@temporalio/worker';
import type { Logger } from '@temporalio/common';
import type { DelegateReportSinks } from '../contracts/sinks';
import type { WorkerMetrics } from './metrics';

/** The sinks a worker registers as `sinks`; never called on replay, so no line is written and no subtask counted twice. */
export function reportSinks(metrics: WorkerMetrics, logger: Logger = Runtime.instance().logger): InjectedSinks<DelegateReportSinks> {
  return {
    delegateReports: {
      batch: {
        fn: (info, { lines, finished }) => {
          const ids = {
            sdkComponent: 'workflow',
            namespace: info.namespace,
            taskQueue: info.taskQueue,
            workflowId: info.workflowId,
            runId: info.runId,
            workflowType: info.workflowType,
          };
          for (const l of lines) logger[l.level](l.message, { ...ids, ...l.attrs });
          for (const o of finished) metrics.subtaskFinished(o);
        },
        callDuringReplay: false,
      },
    },
  };
}
