/**
 * Turning tracing on or off is a deploy: jobs running across it must replay. The recorded
 * histories (test/fixtures/histories, written untraced) replay against the traced bundle with
 * its interceptors and sink, as a worker started with OTEL_* variables would run them.
 * (The other direction, a traced history on an untraced bundle, is in trace.test.ts.)
 */
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { Runtime, Worker, type WorkflowBundle } from '@temporalio/worker';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeFixture, historyFromProtoJson } from '../../scripts/history-json';
import { startTracing, type Tracing } from '../../telemetry/tracing';
import { workerTracing } from '../../telemetry/worker-tracing';
import { bundleWorkflows } from '../../workers/worker';
import { fileRuntimeOptions, logFileFor } from '../setup/sdk-log';

const DIR = join(import.meta.dirname, '../fixtures/histories');
const runs = readdirSync(DIR)
  .filter((f) => f.endsWith('.json.gz') && !f.endsWith('.cli.json.gz'))
  .flatMap((f) => decodeFixture(readFileSync(join(DIR, f))).map((run) => ({ label: `${f}: ${run.workflowId} ${run.runId}`, run })));

// the replay workers' lines (unregistered sinks, failing tasks) go to this run's log folder: the assertions report failures
Runtime.install(fileRuntimeOptions(logFileFor(import.meta.filename)));

const exporter = new InMemorySpanExporter();
let tracing: Tracing;
let workflowBundle: WorkflowBundle;
beforeAll(async () => {
  tracing = startTracing({ serviceName: 'delegate-replay', exporter })!;
  workflowBundle = await bundleWorkflows({ tracing: true });
});
afterAll(() => tracing?.shutdown());

describe('tracing on, recorded histories', () => {
  it('every recorded run replays against the traced bundle, and replay exports no span', async () => {
    expect(runs.length).toBeGreaterThan(10);
    // the bundle really is the traced one: the SDK's workflow spans and Delegate's attributes are in it
    expect((workflowBundle as { code: string }).code).toContain('OpenTelemetryInboundInterceptor');
    expect((workflowBundle as { code: string }).code).toContain('delegate.workflow_id');
    const { interceptors, sinks } = workerTracing(tracing);
    // runs of one id (continue-as-new chains) replay in rounds of distinct ids, as replay.test.ts does
    const rounds: (typeof runs)[] = [];
    for (const r of runs) {
      const round = rounds.find((x) => !x.some((y) => y.run.workflowId === r.run.workflowId));
      if (round) round.push(r);
      else rounds.push([r]);
    }
    const failures: string[] = [];
    for (const round of rounds) {
      const byId = new Map(round.map((r) => [r.run.workflowId, r.label]));
      const source = round.map((r) => ({ workflowId: r.run.workflowId, history: historyFromProtoJson(r.run.history) }));
      for await (const r of Worker.runReplayHistories(
        { workflowBundle, interceptors, sinks, replayName: 'delegate-replay-traced' },
        source,
      )) {
        if (r.error) failures.push(`${byId.get(r.workflowId)}: ${r.error.name}: ${r.error.message}`);
      }
    }
    expect(failures).toEqual([]);
    // sinks are not called on replay: a worker that replays after a restart sends no span twice
    await tracing.flush();
    expect(exporter.getFinishedSpans().filter((s) => s.name.startsWith('RunWorkflow:'))).toEqual([]);
  });
});
