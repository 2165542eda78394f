/**
 * The worker's side of the `delegateLog` sink (workflows/telemetry-sinks.ts): a job's batch of
 * lines, each written through the SDK's logger as the workflow's own `log` writes it — the
 * workflow's ids and `sdkComponent: workflow`, then the line's fields — so a batched line reads
 * exactly like any other workflow line (telemetry/logging.ts flattens them the same way).
 */
import { Runtime, type InjectedSinks } from '@temporalio/worker';
import type { Logger } from '@temporalio/common';
import type { DelegateLogSinks } from '../workflows/telemetry-sinks';

/** The sinks a worker registers as `sinks`; never called on replay, so no line is written twice. */
export function logSinks(logger: Logger = Runtime.instance().logger): InjectedSinks<DelegateLogSinks> {
  return {
    delegateLog: {
      lines: {
        fn: (info, lines) => {
          const ids = {
            sdkComponent: 'workflow',
            namespace: info.namespace,
            taskQueue: info.taskQueue,
            workflowId: info.workflowId,
            runId: info.runId,
            workflowType: info.workflowType,
          };
          for (const l of lines) logger[l.level](l.message, { ...ids, ...l.attrs });
        },
        callDuringReplay: false,
      },
    },
  };
}
