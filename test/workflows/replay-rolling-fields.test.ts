/**
 * A rolling deploy: the API (new) sets `cache` and `downshift` from the spec, a worker from before
 * them runs the job and ignores the fields, and the worker that replaces it replays that history.
 * Each recorded run here is a fixture of the old code with the field added to its input, as such a
 * worker would have left it: the new code must take the old path for it (its patch marker is not
 * in the history), not issue the lookup or the down-shift where the history holds a child's start
 * or a step. (A job's own down-shift changes only its children's input, which a replay does not
 * compare: its patch keeps the job's view true, with no command to check here.)
 */
import { Runtime, Worker, type WorkflowBundle } from '@temporalio/worker';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeFixture, historyFromProtoJson, type RecordedRun } from '../../scripts/history-json';
import { bundleWorkflows } from '../../workers/worker';
import { fileRuntimeOptions, logFileFor } from '../setup/sdk-log';

const DIR = join(import.meta.dirname, '../fixtures/histories');

Runtime.install(fileRuntimeOptions(logFileFor(import.meta.filename)));

let workflowBundle: WorkflowBundle;
beforeAll(async () => {
  workflowBundle = await bundleWorkflows();
});

/** An agent's manifest as the API resolves it at submission. */
const manifest = (id: string) => ({
  id,
  version: '1.0.0',
  kind: 'builtin',
  limits: { timeoutSeconds: 30, maxSteps: 10 },
  retry: { maxAttempts: 3, initialIntervalSeconds: 1, backoffCoefficient: 2, maximumIntervalSeconds: 30 },
});
/** A ladder from `from` down to a measured cheaper agent, due at once. */
const ladder = (from: string) => ({
  threshold: 0,
  qualityFloor: 0,
  rungs: [
    { agent: from, manifest: manifest(from), quality: 1, runs: 10, taskUsd: 0.1, stepUsd: 0.1 },
    { agent: 'cheap', manifest: manifest('cheap'), quality: 1, runs: 10, taskUsd: 0.001, stepUsd: 0.001 },
  ],
});

/** The recorded run `workflowId` of `file`, with `change` applied to its input. */
function withInput(file: string, workflowId: string, change: (input: Record<string, unknown>) => void): RecordedRun {
  const run = decodeFixture(readFileSync(join(DIR, file))).find((r) => r.workflowId === workflowId);
  if (!run) throw new Error(`${file}: no run ${workflowId}`);
  const history = structuredClone(run.history) as {
    events: { workflowExecutionStartedEventAttributes?: { input: { payloads: { data: string }[] } } }[];
  };
  const payload = history.events[0].workflowExecutionStartedEventAttributes!.input.payloads[0];
  const input = JSON.parse(Buffer.from(payload.data, 'base64').toString('utf8')) as Record<string, unknown>;
  change(input);
  payload.data = Buffer.from(JSON.stringify(input)).toString('base64');
  return { ...run, history };
}

async function replay(run: RecordedRun): Promise<string | undefined> {
  const source = [{ workflowId: run.workflowId, history: historyFromProtoJson(run.history) }];
  for await (const r of Worker.runReplayHistories({ workflowBundle, replayName: 'delegate-rolling-fields' }, source))
    if (r.error) return `${r.error.name}: ${r.error.message}`;
  return undefined;
}

describe('a history an older worker left of a job whose spec sets a new field', () => {
  it('replays a job with `cache` that ran its children without a lookup', async () => {
    const run = withInput('fanout.json.gz', 'job/rec/fanout', (input) => {
      (input.spec as Record<string, unknown>).cache = { ttlSeconds: 3600, scope: 'tenant' };
      input.agents = { echo: manifest('echo'), sim: manifest('sim') };
    });
    expect(await replay(run)).toBeUndefined();
  });

  it('replays a subtask with a ladder whose steps stayed on its agent', async () => {
    const run = withInput('archived.json.gz', 'job/rec/archived/a', (input) => {
      input.downshift = ladder('echo');
    });
    expect(await replay(run)).toBeUndefined();
  });
});
