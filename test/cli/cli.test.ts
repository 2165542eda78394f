/**
 * The `delegate` CLI run as a subprocess against the API on real loopback HTTP: exit codes
 * (0 success, 1 job failure or partial, 2 refused before dispatch), `--json` on stdout only,
 * and the commands a script would call. The first case runs the launcher a user runs
 * (`node cli/bin.js`, under tsx); the others the same sources compiled once (run-cli.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import type { JobResult, JobSpecInput, JobView } from 'delegate/client';
import { cliRunner } from './run-cli';
import { listeningApp, uniqueId, waitForSubtask } from '../helpers';

const { app, url }: { app: FastifyInstance; url: string } = await listeningApp({}, null);
afterAll(() => app.close());
const { dir, delegate, delegateToClosedPipe, jsonFile: specFile } = cliRunner(url);

const fanout = (jobId: string, labels?: Record<string, string>): JobSpecInput => ({
  jobId,
  pattern: 'fanout',
  ...(labels ? { labels } : {}),
  tasks: [
    { id: 'a', question: 'What is A?', agent: 'echo' },
    { id: 'b', question: 'What is B?', agent: 'sim', params: { answer: 'B', costUsd: 0.01, steps: 2 } },
  ],
});

describe('delegate CLI', () => {
  it('submit --wait --json: exit 0, the result on stdout and nothing else there; progress lines on stderr (the launcher itself)', async () => {
    const jobId = uniqueId('cli');
    const run = await delegate(['submit', specFile(fanout(jobId)), '--wait', '--json'], {}, { launcher: true });
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as JobResult;
    expect(result).toMatchObject({ jobId, status: 'success', output: { a: 'What is A?', b: 'B' } });
    expect(run.stderr).toContain(`job ${jobId} running`);

    // and the same for people: a table of subtasks, the totals
    const human = await delegate(['result', jobId], {}, { launcher: true });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^TASK\s+AGENT\s+STATUS/m);
    expect(human.stdout).toContain(`job ${jobId} (fanout) success`);
  });

  it('a failing job exits 1; a partial one too', async () => {
    const failing = await delegate([
      'submit',
      specFile({ pattern: 'fanout', tasks: [{ id: 'x', question: 'q', agent: 'sim', params: { fatal: true } }] }),
      '--wait',
      '--json',
    ]);
    expect(failing.code).toBe(1);
    expect(JSON.parse(failing.stdout).status).toBe('failure');
    const partial = await delegate([
      'submit',
      specFile({
        pattern: 'fanout',
        tasks: [
          { id: 'ok', question: 'q', agent: 'echo' },
          { id: 'x', question: 'q', agent: 'sim', params: { fatal: true } },
        ],
      }),
      '--wait',
    ]);
    expect(partial.code).toBe(1);
    expect(partial.stdout).toMatch(/job \S+ \(fanout\) (partial|failure)/);
  });

  it('refused before dispatch exits 2 with the problem: invalid spec, unrunnable spec, bad key, unreadable file, bad usage', async () => {
    const invalid = await delegate([
      'submit',
      specFile({ pattern: 'fanout', tasks: [{ id: 'x', question: '', agent: 'echo' }] }),
      '--json',
    ]);
    expect(invalid.code).toBe(2);
    const problem = JSON.parse(invalid.stdout).error;
    expect(problem.status).toBe(400);
    expect(problem.errors.map((e: { path: string }) => e.path)).toContain('body.tasks[0].question');
    expect(invalid.stderr).toContain('body.tasks[0].question');

    const unrunnable = await delegate([
      'submit',
      specFile({ pattern: 'fanout', tasks: [{ id: 'x', question: 'q', agent: 'no-such-agent' }] }),
      '--wait',
    ]);
    expect(unrunnable.code).toBe(2);
    expect(unrunnable.stdout).toBe('');
    expect(unrunnable.stderr).toContain('422 Job cannot run');
    expect(unrunnable.stderr).toContain('body.tasks[0].agent');

    const badKey = await delegate(['submit', specFile(fanout(uniqueId('nokey'))), '--json'], { DELEGATE_KEY: 'not-a-key-0123456789' });
    expect(badKey.code).toBe(2);
    expect(JSON.parse(badKey.stdout).error.status).toBe(401);

    const missing = await delegate(['submit', join(dir, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read');
    const usage = await delegate(['budget', 'add', 'j1', '--cost-usd', '-1']);
    expect(usage.code).toBe(2);
  });

  it('submit, status, result --wait, jobs and agents with --json parse; tables without it', async () => {
    const suite = uniqueId('clisuite');
    const jobId = uniqueId('clijobs');
    const sub = await delegate(['submit', specFile(fanout(jobId, { suite })), '--json']);
    expect(sub.code).toBe(0);
    expect(JSON.parse(sub.stdout)).toMatchObject({ jobId, status: 'running' });

    const status = await delegate(['status', jobId, '--json']);
    expect(status.code).toBe(0);
    expect((JSON.parse(status.stdout) as JobView).jobId).toBe(jobId);

    const result = await delegate(['result', jobId, '--wait', '--json']);
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as JobResult).status).toBe('success');

    const [jobs, table, agents] = await Promise.all([
      delegate(['jobs', '--label', `suite=${suite}`, '--status', 'success', '--json']),
      delegate(['jobs', '--label', `suite=${suite}`, '--page-size', '5']),
      delegate(['agents', '--json']),
    ]);
    expect(JSON.parse(jobs.stdout)).toMatchObject({ jobs: [{ jobId }], nextPageToken: null });
    expect(table.stdout).toMatch(new RegExp(`^JOB\\s+PATTERN\\s+STATE[\\s\\S]*^${jobId}\\s+fanout\\s+completed\\s+success`, 'm'));
    expect(JSON.parse(agents.stdout).map((a: { id: string }) => a.id)).toEqual(expect.arrayContaining(['echo', 'sim']));

    const reports = await delegate(['reports', '--label', `suite=${suite}`, '--json']);
    expect(JSON.parse(reports.stdout).reports.map((r: { jobId: string }) => r.jobId)).toEqual([jobId]);
  });

  it('budget add tops up a job waiting for budget; stop and cancel answer and end the jobs', async () => {
    const jobId = uniqueId('clitop');
    await delegate([
      'submit',
      specFile({
        jobId,
        pattern: 'fanout',
        budget: { costUsd: 0.02 },
        tasks: [
          { id: 'w', question: 'four steps', agent: 'sim', params: { steps: 4, costUsd: 0.01, answer: 'done' }, budgetWaitSeconds: 60 },
        ],
      }),
    ]);
    await waitForSubtask(jobId, 'w', 'waiting_for_budget');
    const top = await delegate(['budget', 'add', jobId, '--cost-usd', '0.03', '--json']);
    expect(top.code).toBe(0);
    expect(JSON.parse(top.stdout).ledger.costUsd.limit).toBeCloseTo(0.05, 10);
    expect((await delegate(['result', jobId, '--wait'])).code).toBe(0);

    const slow = (id: string) =>
      specFile({
        jobId: id,
        pattern: 'fanout',
        tasks: [{ id: 's', question: 'slow', agent: 'sim', params: { steps: 1000, latencyMs: 20 } }],
      });
    const stopId = uniqueId('clistop');
    const cancelId = uniqueId('clicancel');
    await Promise.all([delegate(['submit', slow(stopId)]), delegate(['submit', slow(cancelId)])]);
    await waitForSubtask(stopId, 's', 'running');
    await waitForSubtask(cancelId, 's', 'running');
    const [stop, cancel] = await Promise.all([delegate(['stop', stopId, '--json']), delegate(['cancel', cancelId])]);
    expect([stop.code, cancel.code]).toEqual([0, 0]);
    expect(JSON.parse(stop.stdout)).toMatchObject({ jobId: stopId, status: 'stopping' });
    expect(cancel.stdout).toContain(`job ${cancelId} cancelling`);
    const stopped = await delegate(['result', stopId, '--wait', '--json']);
    expect(stopped.code).toBe(1);
    expect((JSON.parse(stopped.stdout) as JobResult).results[0]).toMatchObject({ status: 'partial', failureReason: 'stopped' });
    const unknown = await delegate(['stop', uniqueId('nojob')]);
    expect(unknown.code).toBe(2);
  });

  it('--version prints the version; a reader that stopped early (`delegate list | head -1`) ends it quietly with exit 0', async () => {
    const { version } = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string };
    const v = await delegate(['--version']);
    expect(v).toMatchObject({ code: 0, stdout: `${version}\n` });
    await delegate(['submit', specFile(fanout(uniqueId('clipipe'))), '--wait']);
    for (const args of [['list'], ['jobs', '--json'], ['--help']]) {
      const run = await delegateToClosedPipe(args);
      expect(run.code, args.join(' ')).toBe(0);
      // what stderr may say (`list`'s "more: --page-token …" past a page) but no error and no stack trace
      expect(run.stderr, args.join(' ')).not.toMatch(/EPIPE|Error|\n\s+at /);
    }
  });

  it('events follows a job to its end, one line per event (--json: one object per line)', async () => {
    const jobId = uniqueId('clievents');
    await delegate(['submit', specFile(fanout(jobId))]);
    const [json, human] = await Promise.all([delegate(['events', jobId, '--json']), delegate(['events', jobId])]);
    expect(json.code).toBe(0);
    const events = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number; type: string });
    expect(events[0].type).toBe('job.started');
    expect(events.at(-1)!.type).toBe('job.finished');
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(human.stdout.trim().split('\n')).toHaveLength(events.length);
    expect(human.stdout).toMatch(/subtask\.finished\s+taskId=b agentId=sim status=success/);
  });
});
