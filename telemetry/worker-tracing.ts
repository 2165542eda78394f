/**
 * The worker's half of tracing: the workflow interceptor modules a traced bundle holds, the
 * activity interceptors, and the sink through which workflow spans (made in the sandbox,
 * which may do no I/O) reach the process's span processor. Sinks are not called on replay,
 * so a replayed workflow exports no span twice.
 */
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { WorkerInterceptors } from '@temporalio/worker';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Tracing } from './tracing';

/** Workflow interceptor modules of a traced bundle: the SDK's spans first, then Delegate's attributes on them. */
export const tracingWorkflowModules: string[] = [
  createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
  fileURLToPath(new URL('./workflow-span-attributes.ts', import.meta.url)),
];

/** What a traced worker adds to its options. */
export interface WorkerTracingOptions {
  /** Activity spans (`RunActivity:<type>`), children of the workflow's `StartActivity` span; log lines get the trace id. */
  interceptors: Required<Pick<WorkerInterceptors, 'activity'>>;
  /** `exporter`: workflow spans to the process's span processor. */
  sinks: { exporter: ReturnType<typeof makeWorkflowExporter> };
}

/** The interceptors and sink of a worker traced by `tracing`. */
export function workerTracing(tracing: Tracing): WorkerTracingOptions {
  return {
    interceptors: {
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    sinks: { exporter: makeWorkflowExporter(tracing.processor, tracing.resource) },
  };
}
