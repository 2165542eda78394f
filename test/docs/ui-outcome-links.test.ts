/**
 * The Temporal UI guide's links to failed, partial, successful and cancelled jobs
 * (docs/guides/temporal-ui.md) each open the list of the top-level jobs that ended so, and only
 * those: an operator tells outcomes apart without setting up columns, while every job still
 * completes with its JobResult, readable as before.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobSpec } from '../../schemas';
import { expectQuery } from '../../scripts/ui-story';
import { subtaskStatusQuery } from '../../contracts/messages';
import { pollUntil, startJob, testClient, uniqueId } from '../helpers';
import { ROOT } from './blocks';

/** The guide's outcome links: the outcome each filters on, and its query. */
function outcomeLinks(): { outcome: string; query: string }[] {
  const text = readFileSync(join(ROOT, 'docs/guides/temporal-ui.md'), 'utf8');
  return [...text.matchAll(/\]\((http:\/\/localhost:8233\/namespaces\/default\/workflows\?query=[^)\s]+)\)/g)].map(([, url]) => {
    const query = new URL(url!).searchParams.get('query')!;
    return { outcome: /DelegateStatus = "(\w+)"/.exec(query)?.[1] ?? '', query };
  });
}

type Task = JobSpec['tasks'][number];
const echo = (id: string): Task => ({ id, question: `say ${id}`, agent: 'echo' });
const fatal = (id: string): Task => ({ id, question: `fail ${id}`, agent: 'sim', params: { fatal: true } });
const slow: Task = { id: 'slow', question: 'count', agent: 'sim', params: { steps: 1000, latencyMs: 20 } };

describe("the Temporal UI guide's outcome links", () => {
  it('are one per outcome of a job', () => {
    expect(outcomeLinks().map((l) => l.outcome)).toEqual(['failure', 'partial', 'success', 'cancelled']);
  });

  it('each find the jobs that ended with their outcome, whose results stay readable', async () => {
    const prefix = uniqueId('ui-outcome');
    const tasks: Record<string, Task[]> = {
      failure: [fatal('a')],
      partial: [echo('a'), fatal('b')],
      success: [echo('a')],
      cancelled: [slow],
    };
    const handles = Object.fromEntries(
      await Promise.all(
        Object.entries(tasks).map(
          async ([outcome, t]) => [outcome, await startJob({ jobId: `${prefix}-${outcome}`, pattern: 'fanout', tasks: t })] as const,
        ),
      ),
    );
    // cancelled while its subtask runs, as an operator or `delegate cancel` does
    const client = await testClient();
    const slowRun = client.workflow.getHandle(`job/test/${prefix}-cancelled/slow`);
    await pollUntil(
      async () => (await slowRun.query(subtaskStatusQuery).catch(() => undefined))?.phase === 'running',
      'the slow subtask running',
    );
    await handles.cancelled!.cancel();
    for (const [outcome, handle] of Object.entries(handles)) expect((await handle.result()).status, outcome).toBe(outcome);

    for (const { outcome, query } of outcomeLinks()) {
      await expectQuery(client, `${query} AND WorkflowId STARTS_WITH "job/test/${prefix}-"`, [`job/test/${prefix}-${outcome}`]);
    }
  });
});
