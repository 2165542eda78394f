/**
 * Every behaviour generation old runs still replay through, in one place (after the SDK's own
 * list of its flags, `SdkFlags`): a change to what a workflow commands is registered here with how runs tell the two
 * behaviours apart, when the new one came in, the fixture that keeps the old one replaying, and
 * from when no history can hold the old one any more, so it can be retired.
 *
 *   change ──mechanism──> patched('<id>') marker │ input version (hostRules) │ input flag
 *      └─ fixture of the old side (test/fixtures/histories) ── expires: since + retention + longest job
 *
 * No workflow imports this module, so none of it reaches the workflow bundle (every file of core/
 * is preloaded into each worker context, which is why it is not there); a test reads
 * the workflow sources and checks both ways that every patch id, host-rules version and input flag
 * is registered and that every registered one is still in the code, and it fails once a
 * generation has expired and is still there: retire it then (CONTRIBUTING.md, "Registering a
 * behaviour change").
 */

/** How a run tells the old behaviour from the new one. */
export type GenerationMechanism =
  /** `patched(id)`: runs that took the new branch hold a marker with the id. */
  | 'patch'
  /** `SubtaskInput.hostRules >= version`: the job that starts the run says which rules it enforces. */
  | 'hostRules'
  /** An optional field of a workflow input: present on runs started after the change. */
  | 'input';

/** One generation of the workflows' behaviour. */
export interface Generation {
  /** The patch id, `hostRules:<n>`, or `input:<field>`. */
  id: string;
  mechanism: GenerationMechanism;
  /** What the new behaviour does that the old did not. */
  changed: string;
  /** The day (UTC) new runs began to get it: the old behaviour can start no run after this day. */
  since: string;
  /** The fixtures (test/fixtures/histories) whose runs replay the old side, or both. */
  fixtures: string[];
}

/** The namespace's retention of closed runs (deploy/temporal.env, the dev server's default). */
export const RETENTION_DAYS = 1;
/**
 * The longest a job of this deployment runs: an assumption, since a job may wait for approvals
 * (up to 1,000,000 s each, about 11.6 days) and top-ups more than once. A deployment with longer
 * jobs raises it before retiring anything.
 */
export const LONGEST_JOB_DAYS = 30;

export const GENERATIONS: readonly Generation[] = [
  {
    id: 'durable-record',
    mechanism: 'patch',
    changed: 'a root job archives its result to the record (archiveJob) before it completes',
    since: '2026-11-30',
    fixtures: ['fanout.json.gz', 'archived.json.gz'],
  },
  {
    id: 'job-events',
    mechanism: 'patch',
    changed: "a job writes its live events to the record (local activities) instead of leaving them to the activities' hooks",
    since: '2026-11-30',
    fixtures: ['fanout.json.gz', 'archived.json.gz'],
  },
  {
    id: 'input:showOutcome',
    mechanism: 'input',
    changed: "a failed subtask's run fails with its TaskResult as the failure's details, and its search attributes say why",
    since: '2026-11-30',
    fixtures: ['fanout.json.gz', 'outcomes.json.gz'],
  },
  {
    id: 'weighted-vote-share',
    mechanism: 'patch',
    changed: 'a weighted vote decides by share of the weight cast, not of the weight of every voter',
    since: '2026-12-01',
    fixtures: ['weighted-vote.json.gz', 'vote.json.gz'],
  },
  {
    id: 'agent-fallbacks',
    mechanism: 'patch',
    changed: "a subtask moves on to its task's fallback agents after a final failure, an open circuit or a missing agent",
    since: '2026-12-01',
    fixtures: ['fallback.json.gz'],
  },
  {
    id: 'hostRules:1',
    mechanism: 'hostRules',
    changed:
      'stop conditions between steps; a budget halt explained and partial even before the first step; one summary re-prompt; the rules’ state carried',
    since: '2026-12-01',
    fixtures: ['host-rules.json.gz', 'outcomes.json.gz'],
  },
  {
    id: 'inbox-budget-wait',
    mechanism: 'patch',
    changed: "a subtask's wait for a budget top-up opens an item in the tenant's inbox (and settles it when the wait ends)",
    since: '2026-12-02',
    fixtures: ['top-ups.json.gz'],
  },
  {
    id: 'fanout-middle-batches',
    mechanism: 'patch',
    changed: 'a fan-out of 101–500 tasks runs as a tree of up to eight batches instead of flat',
    since: '2026-12-02',
    fixtures: ['batched-middle.json.gz', 'batched-middle.flat.json.gz'],
  },
  {
    id: 'hostRules:2',
    mechanism: 'hostRules',
    changed: 'a step cut by the latency budget or a cancel is awaited, and what it spent is booked',
    since: '2026-12-02',
    fixtures: ['cut-steps.json.gz'],
  },
  {
    id: 'job-events-burst',
    mechanism: 'patch',
    changed: "a job's events leave in one write per burst (one activation), not one per event",
    since: '2026-12-03',
    fixtures: ['archived.json.gz', 'archived.2026-12-03.json.gz'],
  },
  {
    id: 'hostRules:3',
    mechanism: 'hostRules',
    changed: "a cancel cuts the step in flight through the run's root scope (no scope per step); a cut step ends cancel",
    since: '2026-12-03',
    fixtures: ['cancel.json.gz', 'cancel.2026-12-03.json.gz'],
  },
  {
    id: 'input:checked',
    mechanism: 'input',
    changed: 'a job the API checked skips the input check in the workflow (no zod loaded by the run)',
    since: '2026-12-03',
    fixtures: ['fanout.json.gz'],
  },
  {
    id: 'input:manifest',
    mechanism: 'input',
    changed: "a subtask gets its agent's RunManifest resolved at submission: no resolveAgent activity",
    since: '2026-12-03',
    fixtures: ['fanout.json.gz'],
  },
  {
    id: 'input:shown',
    mechanism: 'input',
    changed: 'a subtask sets its search attributes at its end (with its outcome) instead of at its start',
    since: '2026-12-04',
    fixtures: ['outcomes.json.gz', 'outcomes.2026-12-04.json.gz'],
  },
  {
    id: 'fair-grants',
    mechanism: 'patch',
    changed:
      'a job shares its budget by its `allocation`: fair shares weighted by leaf tasks, own budgets capped at the share, a floor of one measured step and a wait for refunds; or greedy',
    since: '2026-12-05',
    fixtures: ['fanout.json.gz', 'top-ups.json.gz', 'nested.json.gz', 'fair-grants.json.gz'],
  },
  {
    id: 'recorded-step-floors',
    mechanism: 'patch',
    changed:
      "under `fair`, a task whose agent the tenant's record measured (stepFloors, set by the API) is granted at least that agent's step, or waits for a refund, before the job measured its own; asked only by runs with such a floor",
    since: '2026-12-05',
    fixtures: ['fair-grants.json.gz'],
  },
  {
    id: 'result-cache',
    mechanism: 'patch',
    changed:
      "a task with `cache` (its own or its job's, a spec field) is looked up in the tenant's result cache before its child starts (local activities), served at $0 on a hit, de-duplicated in the job, and its success stored; asked only by runs with a covered task (the API sets the field whichever worker runs the job)",
    since: '2026-12-05',
    fixtures: ['fanout.json.gz'],
  },
  {
    id: 'downshift',
    mechanism: 'patch',
    changed:
      'a subtask (or a job) with a ladder resolved at submission steps down to the cheapest agent above its quality floor once its spend passes the threshold: a local activity writes subtask.downshift, the result notes it; asked only by runs with a ladder (the API sets it whichever worker runs the job)',
    since: '2026-12-05',
    fixtures: ['fanout.json.gz', 'fallback.json.gz', 'fair-grants.json.gz'],
  },
  {
    id: 'hedged-steps',
    mechanism: 'patch',
    changed:
      "a task with `hedge` reads its agent's step latency from the record (a local activity) and starts a second step past that quantile, on the same agent or `hedge.agent`; the first valid answer wins, both are booked",
    since: '2026-12-05',
    fixtures: ['fanout.json.gz'],
  },
];

const DAY_MS = 86_400_000;

/** The first day on which no history can still hold the behaviour before `g` (UTC, YYYY-MM-DD). */
export function expiresOn(g: Pick<Generation, 'since'>, longestJobDays = LONGEST_JOB_DAYS, retentionDays = RETENTION_DAYS): string {
  const t = Date.parse(`${g.since}T00:00:00Z`) + (1 + retentionDays + longestJobDays) * DAY_MS;
  return new Date(t).toISOString().slice(0, 10);
}

/** The generations whose old side no history can hold at `now`: each is to be retired. */
export function expired(now: number, list: readonly Generation[] = GENERATIONS): Generation[] {
  return list.filter((g) => Date.parse(`${expiresOn(g)}T00:00:00Z`) <= now);
}
