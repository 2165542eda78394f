/**
 * The job the Temporal UI screenshots of docs/guides/temporal-ui.md show, and the visibility queries the guide
 * gives: a fan-out of tenant `acme` in which one subtask succeeded, one failed, one was
 * halted by its budget, one is still running, and a nested vote decided early (two voters
 * cancelled). `ui-screenshot.ts` submits it, waits for `storyReady`, then checks every query.
 */
import type { Client } from '@temporalio/client';
import type { JobSpec } from '../schemas';

type Task = JobSpec['tasks'][number];
const sim = (id: string, question: string, params: Record<string, unknown>, extra: Partial<Task> = {}): Task => ({
  id,
  question,
  agent: 'sim',
  params,
  ...extra,
});

/**
 * The workflow list's columns in the pictures, and the ones the guide suggests: Delegate's
 * search attributes but the tenant (it is in every workflow id), after the UI's status and id.
 */
export const LIST_COLUMNS = [
  'Status',
  'Workflow ID',
  'DelegateStatus',
  'DelegateFailureReason',
  'DelegateAgent',
  'DelegatePattern',
  'DelegateLabels',
];

/** The tenant and the job id of the story. */
export const STORY_TENANT = 'acme';
export const STORY_JOB_ID = 'market-scan';

/** The story's spec, as a client submits it to `POST /v1/jobs`. */
export const STORY_SPEC: JobSpec = {
  jobId: STORY_JOB_ID,
  pattern: 'fanout',
  objective: 'Scan the market for the Q3 launch',
  labels: { team: 'research' },
  budget: { costUsd: 1 },
  tasks: [
    sim('competitors', 'List the five closest competitors', { steps: 2, costUsd: 0.004, answer: ['A', 'B', 'C', 'D', 'E'] }),
    sim('crawl-pricing', 'Crawl the pricing pages', { fatal: true }),
    sim('survey', 'Summarise the customer survey', { steps: 5, costUsd: 0.01 }, { budget: { costUsd: 0.02 } }),
    // still running when the pictures are taken: the teardown ends it
    sim('deep-dive', 'Deep dive into the top competitor', { steps: 200, latencyMs: 1500, costUsd: 0.002 }),
    {
      id: 'go-no-go',
      question: 'Should we launch in Q3?',
      job: {
        pattern: 'vote',
        vote: { strategy: 'majority' },
        tasks: [
          ...['analyst-1', 'analyst-2', 'analyst-3'].map((id) => sim(id, 'Launch in Q3?', { answer: 'yes', costUsd: 0.001 })),
          // slower than the three who agree: the vote is decided without them and they are cancelled
          ...['analyst-4', 'analyst-5'].map((id) => sim(id, 'Launch in Q3?', { answer: 'no', steps: 30, latencyMs: 1000 })),
        ],
      },
    },
  ],
};

/** The story's workflow ids (the API names a job's workflow `job/<tenant>/<jobId>`, children `<parent>/<taskId>`). */
export function storyIds(root: string) {
  return {
    root,
    ok: `${root}/competitors`,
    failed: `${root}/crawl-pricing`,
    halted: `${root}/survey`,
    running: `${root}/deep-dive`,
    vote: `${root}/go-no-go`,
    voters: [1, 2, 3, 4, 5].map((i) => `${root}/go-no-go/analyst-${i}`),
  };
}

/** The queries docs/guides/temporal-ui.md gives, each with the story's workflows it must find (exactly). */
export function readmeQueries(root: string): { what: string; query: string; finds: string[] }[] {
  const ids = storyIds(root);
  return [
    {
      what: "one job's tree",
      query: `RootWorkflowId = "${root}"`,
      finds: [root, ids.ok, ids.failed, ids.halted, ids.running, ids.vote, ...ids.voters],
    },
    { what: 'failed subtasks', query: 'WorkflowType = "subtask" AND DelegateStatus = "failure"', finds: [ids.failed] },
    { what: 'budget halts', query: 'DelegateFailureReason = "budget_exhausted"', finds: [ids.halted] },
    // a nested job is a delegationJob too: while the vote ran, the first query found it as well
    {
      what: "one tenant's running jobs",
      query: `WorkflowType = "delegationJob" AND DelegateTenant = "${STORY_TENANT}" AND ExecutionStatus = "Running"`,
      finds: [root],
    },
    {
      what: "one tenant's running top-level jobs",
      query: `WorkflowType = "delegationJob" AND DelegateTenant = "${STORY_TENANT}" AND ExecutionStatus = "Running" AND ParentWorkflowId IS NULL`,
      finds: [root],
    },
    // a subtask has its search attributes from its end: running ones are found by parent and by id
    { what: "a job's running subtasks", query: `ParentWorkflowId = "${root}" AND ExecutionStatus = "Running"`, finds: [ids.running] },
    {
      what: "one tenant's running subtasks",
      query: `WorkflowType = "subtask" AND WorkflowId STARTS_WITH "job/${STORY_TENANT}/" AND ExecutionStatus = "Running"`,
      finds: [ids.running],
    },
    {
      what: 'voters cancelled by an early decision',
      query: 'DelegatePattern = "vote" AND DelegateStatus = "cancelled"',
      finds: ids.voters.slice(3),
    },
    { what: 'by label', query: 'DelegateLabels = "team=research" AND WorkflowType = "delegationJob"', finds: [root, ids.vote] },
  ];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `query` until it finds exactly `ids` (visibility lags the histories a little), or throws. */
export async function expectQuery(client: Client, query: string, ids: string[], timeoutMs = 30_000): Promise<void> {
  const want = [...ids].sort().join('\n');
  const deadline = Date.now() + timeoutMs;
  let got = '';
  for (;;) {
    const found: string[] = [];
    for await (const wf of client.workflow.list({ query })) found.push(wf.workflowId);
    got = found.sort().join('\n');
    if (got === want) return;
    if (Date.now() > deadline) throw new Error(`query ${query}\n  found:\n${got}\n  expected:\n${want}`);
    await sleep(250);
  }
}

/** Waits until the story is what the pictures show: every subtask but the slow one over, the slow one a few steps in. */
export async function storyReady(client: Client, root: string): Promise<void> {
  const ids = storyIds(root);
  await expectQuery(
    client,
    `RootWorkflowId = "${root}" AND WorkflowId != "${root}" AND ExecutionStatus != "Running"`,
    [ids.ok, ids.failed, ids.halted, ids.vote, ...ids.voters],
    120_000,
  );
  const deadline = Date.now() + 60_000;
  while ((await client.workflow.getHandle(ids.running).query<{ steps: number }>('status')).steps < 3) {
    if (Date.now() > deadline) throw new Error(`${ids.running} did not take 3 steps in a minute`);
    await sleep(250);
  }
}
