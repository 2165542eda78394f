/**
 * Replay: every recorded history in test/fixtures/histories runs against the workflow code
 * of this checkout. A change that makes a workflow emit different commands for the same
 * history (a new activity, timer, child, search-attribute upsert, a reordering) fails here
 * with a nondeterminism error: such a change would break every job running during a deploy.
 * Wrap it in `patched('<id>')` (see docs/operations/upgrades.md) and re-record.
 */
import { Runtime, Worker, type WorkflowBundle } from '@temporalio/worker';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeFixture, historyFromProtoJson, type RecordedRun } from '../../scripts/history-json';
import { SCENARIOS } from '../../scripts/history-scenarios';
import { bundleWorkflows } from '../../workers/worker';
import { fileRuntimeOptions, logFileFor } from '../setup/sdk-log';

const DIR = join(import.meta.dirname, '../fixtures/histories');
const files = readdirSync(DIR).filter((f) => f.endsWith('.json.gz'));
const cliFiles = files.filter((f) => f.endsWith('.cli.json.gz'));
/** Every recorded run, labelled `<file>: <workflow id> <run id>`. */
const recorded: { label: string; run: RecordedRun }[] = files
  .filter((f) => !cliFiles.includes(f))
  .flatMap((f) => decodeFixture(readFileSync(join(DIR, f))).map((run) => ({ label: `${f}: ${run.workflowId} ${run.runId}`, run })));
const cliJson = (f: string) => JSON.parse(gunzipSync(readFileSync(join(DIR, f))).toString('utf8')) as unknown;
/** The first argument a recorded run was started with (its payload's JSON). */
function firstInput(r: RecordedRun): unknown {
  const events =
    (r.history as { events?: { workflowExecutionStartedEventAttributes?: { input?: { payloads?: { data?: string }[] } } }[] }).events ?? [];
  const data = events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
  return data === undefined ? undefined : JSON.parse(Buffer.from(data, 'base64').toString('utf8'));
}
/** Every payload of a recorded run, decoded (patch ids live in marker payloads, base64 in the history). */
function payloadText(r: RecordedRun): string {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'data' && typeof x === 'string') out.push(Buffer.from(x, 'base64').toString('utf8'));
        else walk(x);
      }
    }
  };
  walk(r.history);
  return out.join('\n');
}
/** A CLI export holds no workflow id: the recorder exports the root job of the scenario the file is named after. */
const cliWorkflowId = (f: string) => `job/rec/${f.split('.')[0]}`;

// replay workers log every failing task as a warning (to this run's log folder): the assertions below report them
Runtime.install(fileRuntimeOptions(logFileFor(import.meta.filename)));

let workflowBundle: WorkflowBundle;
beforeAll(async () => {
  workflowBundle = await bundleWorkflows();
});

/**
 * Replays histories under their own workflow ids (the code derives child ids from them),
 * in rounds of distinct ids: runs of one continue-as-new chain, or of an old and a new
 * fixture, share an id. The label and error of each run that fails.
 */
async function replayAll(histories: { label: string; history: unknown; workflowId: string }[]): Promise<string[]> {
  const rounds: (typeof histories)[] = [];
  for (const h of histories) {
    const round = rounds.find((r) => !r.some((x) => x.workflowId === h.workflowId));
    if (round) round.push(h);
    else rounds.push([h]);
  }
  const failures: string[] = [];
  for (const round of rounds) {
    const byId = new Map(round.map((h) => [h.workflowId, h.label]));
    const source = round.map((h) => ({ workflowId: h.workflowId, history: historyFromProtoJson(h.history) }));
    for await (const r of Worker.runReplayHistories({ workflowBundle, replayName: 'delegate-replay-test' }, source)) {
      if (r.error) failures.push(`${byId.get(r.workflowId)}: ${r.error.name}: ${r.error.message}`);
    }
  }
  return failures;
}

describe('recorded histories replay against the current workflow code', () => {
  it('the fixtures cover every scenario, every workflow type and both continue-as-new chains', () => {
    const names = new Set(files.map((f) => f.split('.')[0]));
    for (const s of SCENARIOS) expect(names, `no fixture for scenario "${s.name}": npm run histories:record ${s.name}`).toContain(s.name);
    expect(new Set(recorded.map((r) => r.run.workflowType))).toEqual(
      new Set(['delegationJob', 'subtask', 'webhookDelivery', 'pruneArchive', 'agentBreaker']),
    );
    const runsOf = (id: string) => recorded.filter((r) => r.run.workflowId === id).length;
    expect(runsOf('job/rec/long-subtask/long')).toBeGreaterThan(1);
    expect(runsOf('job/rec/long-pipeline')).toBeGreaterThan(1);
    expect(recorded.some((r) => r.run.workflowId === 'job/rec/batched/batch-0001')).toBe(true);
    expect(cliFiles.length).toBeGreaterThan(0);
    // both sides of the record's patch: roots that archive themselves, and roots recorded before it
    const archives = (r: RecordedRun) => JSON.stringify(r.history).includes('"archiveJob"');
    const roots = recorded
      .filter((r) => r.run.workflowType === 'delegationJob' && r.run.workflowId.split('/').length === 3)
      .map((r) => r.run);
    expect(roots.filter(archives).map((r) => r.workflowId)).toContain('job/rec/archived');
    expect(roots.filter((r) => !archives(r)).map((r) => r.workflowId)).toContain('job/rec/fanout');
    // and of the events patch: roots that write their live events (local activity markers), and roots before it
    const writesEvents = (r: RecordedRun) => JSON.stringify(r.history).includes('"core_local_activity"');
    expect(roots.filter(writesEvents).map((r) => r.workflowId)).toContain('job/rec/archived');
    expect(roots.filter((r) => !writesEvents(r)).map((r) => r.workflowId)).toContain('job/rec/fanout');
    // and of one write per burst: the same root with its marker, and before it (the renamed fixture)
    const burst = (r: RecordedRun) => payloadText(r).includes('"job-events-burst"');
    const archived = roots.filter((r) => r.workflowId === 'job/rec/archived');
    expect(archived.filter(burst)).toHaveLength(1);
    expect(archived.filter((r) => writesEvents(r) && !burst(r))).toHaveLength(1);
    // and of `showOutcome`: a subtask whose run failed with its result, and subtasks from before it
    const failedRun = (r: RecordedRun) => JSON.stringify(r.history).includes('"SubtaskFailed"');
    const subtasks = recorded.filter((r) => r.run.workflowType === 'subtask').map((r) => r.run);
    expect(subtasks.filter(failedRun).map((r) => r.workflowId)).toContain('job/rec/outcomes/bad');
    expect(
      subtasks.filter((r) => !failedRun(r) && !JSON.stringify(r.history).includes('DelegateStatus')).map((r) => r.workflowId),
    ).toContain('job/rec/fanout/c');
    // and of `hostRules`: subtasks that ask the judge and stop on a condition, and subtasks from before the rules
    const hostRules = (r: RecordedRun) => (firstInput(r) as { hostRules?: number } | undefined)?.hostRules === 1;
    expect(subtasks.filter((r) => JSON.stringify(r.history).includes('"judgeRubrics"')).map((r) => r.workflowId)).toContain(
      'job/rec/host-rules/rubric',
    );
    expect(subtasks.filter(hostRules).map((r) => r.workflowId)).toContain('job/rec/host-rules/stop');
    expect(subtasks.filter((r) => !hostRules(r)).map((r) => r.workflowId)).toContain('job/rec/outcomes/halt');
    // and of host rules 2: a step cut by the latency budget, cancelled and awaited for what it spent
    const cutAwaited = (r: RecordedRun) =>
      (firstInput(r) as { hostRules?: number } | undefined)?.hostRules === 2 &&
      JSON.stringify(r.history).includes('ACTIVITY_TASK_CANCEL_REQUESTED');
    expect(subtasks.filter(cutAwaited).map((r) => r.workflowId)).toContain('job/rec/cut-steps/cut');
    // and of host rules 3: a step the cancel signal cut through the run's root scope (no scope per step),
    // beside the same scenario recorded under the rules before (a scope per step)
    const cutInRoot = (r: RecordedRun) =>
      (firstInput(r) as { hostRules?: number } | undefined)?.hostRules === 3 &&
      JSON.stringify(r.history).includes('ACTIVITY_TASK_CANCEL_REQUESTED');
    expect(subtasks.filter(cutInRoot).map((r) => r.workflowId)).toContain('job/rec/cancel/a');
    expect(
      recorded
        .filter((x) => x.label.startsWith('cancel.2026-12-03') && x.run.workflowId === 'job/rec/cancel/a')
        .map((x) => firstInput(x.run)),
    ).toEqual([expect.not.objectContaining({ hostRules: 3 })]);
    // and of `scout`: a root that settles its scout before its record, and roots without one
    const settlesScout = (r: RecordedRun) => JSON.stringify(r.history).includes('"finishScout"');
    expect(roots.filter(settlesScout).map((r) => r.workflowId)).toEqual(['job/rec/scout']);
    // and of the weighted share-of-cast rule: a weighted vote with its patch marker
    expect(roots.filter((r) => payloadText(r).includes('"weighted-vote-share"')).map((r) => r.workflowId)).toEqual([
      'job/rec/weighted-vote',
    ]);
    // and of fallback agents: subtasks that moved on (patch marker), and the breaker's continue-as-new chain
    expect(
      subtasks
        .filter((r) => payloadText(r).includes('"agent-fallbacks"'))
        .map((r) => r.workflowId)
        .sort(),
    ).toEqual(['job/rec/fallback/fatal', 'job/rec/fallback/gone']);
    expect(runsOf('job/rec/breaker')).toBeGreaterThan(1);
  });

  it('every recorded run replays without a nondeterminism error', async () => {
    const failures = await replayAll(recorded.map((r) => ({ label: r.label, history: r.run.history, workflowId: r.run.workflowId })));
    expect(failures).toEqual([]);
  });

  it('histories exported with the Temporal CLI (`temporal workflow show --output json`) replay too', async () => {
    const failures = await replayAll(cliFiles.map((f) => ({ label: f, history: cliJson(f), workflowId: cliWorkflowId(f) })));
    expect(failures).toEqual([]);
  });

  it("the SDK's own JSON reader takes a CLI export as it is (one protobufjs copy for every @temporalio package)", async () => {
    // what an operator does with a history exported from production: no conversion of ours in between
    const [f] = cliFiles;
    const replay = Worker.runReplayHistory({ workflowBundle, replayName: 'delegate-replay-cli' }, cliJson(f), cliWorkflowId(f)).then(
      () => 'replayed',
      (err: Error) =>
        err.message.includes('type must be a Type')
          ? 'two protobufjs copies: package.json pins protobufjs 8.8.1 so npm hoists one copy; run npm install'
          : `${err.name}: ${err.message}`,
    );
    expect(await replay).toBe('replayed');
  });
});
