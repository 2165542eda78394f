/**
 * `delegate subtask` and `delegate scout …` run as subprocesses against the API on real
 * loopback HTTP, with one scout per parent session (DELEGATE_SCOUT_CAP_PER_SESSION=1): the
 * contract output as JSON, the scout's report, and the exit codes (a cap reached or a scope
 * outside the root is refused before dispatch: 2).
 */
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { ScoutReportSchema } from '../../schemas/scout';
import { cliRunner } from './run-cli';
import { listeningApp, uniqueId } from '../helpers';

const { app, url }: { app: FastifyInstance; url: string } = await listeningApp({ DELEGATE_SCOUT_CAP_PER_SESSION: '1' }, null);
afterAll(() => app.close());
const { dir, delegate, jsonFile } = cliRunner(url);

const subtask = (id: string, params: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id,
  parent_id: 'cli_plan',
  question: 'Which PostgreSQL extensions speed up analytics?',
  budget: { latency_seconds: 60, cost_usd: 1, tool_calls: 20 },
  agent: 'sim',
  params,
  ...extra,
});

/** The scout root is the process's working directory (the project), the shared worker's too. */
const TREE = 'test/fixtures/scout-tree';
const EXCERPT = 'The parent is changing the retry policy of the client and needs to know where the backoff is computed.';
const scoutFlags = (session: string, feature: string) => [
  '--question',
  'where is `computeBackoff` defined',
  '--scope',
  TREE,
  '--session',
  session,
  '--feature',
  feature,
  '--excerpt',
  EXCERPT,
];

describe('delegate subtask', () => {
  it('--wait prints the contract output as JSON (exit 0); a budget halt is partial (exit 1)', async () => {
    const ok = await delegate(['subtask', jsonFile(subtask('sub_cli1', { summary: 'Citus helps. It stores columns.' })), '--wait']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({
      id: 'sub_cli1',
      status: 'success',
      summary: 'Citus helps. It stores columns.',
      failure_reason: null,
      delegate: { parent_id: 'cli_plan' },
    });

    const partial = await delegate([
      'subtask',
      jsonFile(subtask('sub_cli2', {}, { budget: { latency_seconds: 60, cost_usd: 0, tool_calls: 5 } })),
      '--wait',
      '--json',
    ]);
    expect(partial.code).toBe(1);
    expect(JSON.parse(partial.stdout)).toMatchObject({ id: 'sub_cli2', status: 'partial', failure_reason: 'budget_exhausted' });
  });

  it('without --wait: { id, job_id, status: running } at once; --job reads its output later', async () => {
    const started = await delegate(['subtask', jsonFile(subtask('sub_cli3', { steps: 3, latencyMs: 400 }))]);
    expect(started.code).toBe(0);
    const running = JSON.parse(started.stdout) as { id: string; job_id: string; status: string };
    expect(running).toMatchObject({ id: 'sub_cli3', status: 'running' });
    const later = await delegate(['subtask', '--job', running.job_id, '--wait']);
    expect(later.code).toBe(0);
    expect(JSON.parse(later.stdout)).toMatchObject({ id: 'sub_cli3', status: 'success', delegate: { job_id: running.job_id } });
  });

  it('an invalid input, a missing file, or neither file nor --job: exit 2 before dispatch', async () => {
    const invalid = await delegate(['subtask', jsonFile({ ...subtask('sub_cli4', {}), budget: { cost_usd: 1 } }), '--wait', '--json']);
    expect(invalid.code).toBe(2);
    expect(JSON.parse(invalid.stdout).error.errors.map((e: { path: string }) => e.path)).toContain('body.budget.latency_seconds');
    expect(invalid.stderr).toContain('body.budget.latency_seconds');
    expect((await delegate(['subtask', join(dir, 'nope.json')])).code).toBe(2);
    const neither = await delegate(['subtask']);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('--job');
  });
});

describe('delegate scout', () => {
  it('prep, run (its report), show and list; a second scout in the session is refused over the cap: exit 2 with what remains', async () => {
    const session = uniqueId('clisess');
    const feature = `cli-${Date.now().toString(36)}`;
    const prep = await delegate(['scout', 'prep', ...scoutFlags(session, feature), '--json']);
    expect(prep.code, prep.stderr).toBe(0);
    expect(JSON.parse(prep.stdout)).toMatchObject({
      id: expect.stringMatching(/^scout-cli-/),
      tools: ['read_file', 'grep'],
      caps: { perSession: { limit: 1, remaining: 1 } },
    });

    const run = await delegate(['scout', 'run', ...scoutFlags(session, feature)]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^scout scout-cli-\S+ committed · success · confidence \w+ · \d+ tokens/);
    expect(run.stdout).toMatch(
      new RegExp(`^WHERE\\s+RELEVANCE\\s+EVIDENCE[\\s\\S]*^${TREE}/src/lib/backoff\\.ts:8\\s+high\\s+export function computeBackoff`, 'm'),
    );
    expect(run.stderr).toContain('caps left: 0 of 1 for this session');
    const id = /^scout (\S+)/.exec(run.stdout)![1];

    const again = await delegate(['scout', 'run', ...scoutFlags(session, feature), '--json']);
    expect(again.code).toBe(2);
    expect(JSON.parse(again.stdout).error).toMatchObject({
      status: 429,
      code: 'scout_cap_exceeded',
      cap: 'session',
      caps: { perSession: { limit: 1, remaining: 0 } },
    });
    expect(again.stderr).toContain('code: scout_cap_exceeded (the session cap)');
    const prepAgain = await delegate(['scout', 'prep', ...scoutFlags(session, feature)]);
    expect(prepAgain.code).toBe(2);
    expect(prepAgain.stderr).toContain('429 Scout cap reached');

    const show = await delegate(['scout', 'show', id, '--json']);
    expect(show.code).toBe(0);
    const shown = JSON.parse(show.stdout) as { state: string; report: unknown };
    expect(shown.state).toBe('committed');
    expect(ScoutReportSchema.parse(shown.report).findings[0]).toMatchObject({ file: `${TREE}/src/lib/backoff.ts`, line: 8 });
    const [listed, table] = await Promise.all([
      delegate(['scout', 'list', '--feature', feature, '--json']),
      delegate(['scout', 'list', '--session', session]),
    ]);
    expect(JSON.parse(listed.stdout)).toMatchObject({ scouts: [{ id, state: 'committed' }], nextPageToken: null });
    expect(table.stdout).toMatch(new RegExp(`^SCOUT\\s+STATE[\\s\\S]*^${id}\\s+committed\\s+success\\s+${feature}`, 'm'));
  });

  it('run --json from a request file prints the report itself; flags override the file', async () => {
    const file = jsonFile({
      question: 'where is the queue drained',
      scopePaths: ['docs'],
      parentAgent: 'file-agent',
      parentSessionId: uniqueId('clisess'),
      parentSessionExcerpt: EXCERPT,
    });
    const run = await delegate([
      'scout',
      'run',
      '--file',
      file,
      '--question',
      'where is `computeBackoff` defined',
      '--scope',
      TREE,
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const report = ScoutReportSchema.parse(JSON.parse(run.stdout));
    expect(report).toMatchObject({
      parent_agent: 'file-agent',
      question: 'where is `computeBackoff` defined',
      scope: { paths: [TREE] },
      status: 'success',
    });
  });

  it('a scope outside the root, or no excerpt: exit 2 with the code or the field, nothing dispatched', async () => {
    const outside = await delegate(['scout', 'run', ...scoutFlags(uniqueId('clisess'), 'cli-out'), '--scope', '../..']);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('code: path_outside_root');
    expect(outside.stderr).toContain('body.scopePaths[1]');
    expect(outside.stderr).not.toContain('dispatched');
    const noExcerpt = await delegate(['scout', 'prep', '--question', 'q', '--scope', TREE, '--session', uniqueId('clisess')]);
    expect(noExcerpt.code).toBe(2);
    expect(noExcerpt.stderr).toContain('body.parentSessionExcerpt');
  });
});
