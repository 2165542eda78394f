/**
 * The words a model reads when it chooses a tool: when each delegation pattern fits, what
 * comes back, and a short example. Kept apart from the wiring so they can be read (and
 * reviewed) as prose.
 */

const WAITING =
  'By default the call waits for the result (up to waitSeconds, default 45) and reports progress (subtasks finished / total) ' +
  'when the request carries a progressToken; a job still running then is not lost: its jobId comes back, and job_result or job_status follow it. ' +
  'With wait: false it returns the jobId at once. The job runs durably either way: cancelling this call does not cancel the job (job_cancel does). ' +
  'Agents are named by id or by { "capability": "…" } (list_agents shows them); budget caps spend per job ({ "costUsd": 1, "tokens": 200000 }) and per task.';

/** The description of each tool, by name. */
export const TOOL_DOCS = {
  delegate_fanout:
    'Fan-out: run independent subtasks in parallel, each handed to one agent, and merge their answers. ' +
    'Use it when a question splits into parts that do not depend on each other (research several sources, check several files, ' +
    'compare several options). aggregation.strategy: "merge" (every answer, by task id), "best_confidence" or "first_success"; ' +
    'aggregation.quorum stops after n successes. ' +
    WAITING +
    '\nExample: {"objective":"Compare three databases","tasks":[{"id":"pg","question":"Strengths of PostgreSQL for analytics?","agent":"researcher"},' +
    '{"id":"ch","question":"Strengths of ClickHouse for analytics?","agent":"researcher"},{"id":"duck","question":"Strengths of DuckDB for analytics?","agent":"researcher"}],' +
    '"budget":{"costUsd":2}}',
  delegate_pipeline:
    "Pipeline: run subtasks one after another, each stage receiving the previous stages' results as context. " +
    'Use it when each step needs the one before (gather → analyse → write; extract → check → summarise). ' +
    'pipeline.onStageFailure: "stop" (default) or "continue". ' +
    WAITING +
    '\nExample: {"objective":"A release note","tasks":[{"id":"gather","question":"List the merged changes since v1.2","agent":"git-reader"},' +
    '{"id":"draft","question":"Write a release note from these changes","agent":{"capability":"writing"}}]}',
  delegate_vote:
    'Vote: ask the same question of several agents (or the same agent several times) and keep the answer they agree on. ' +
    'Use it when one answer must be reliable (a classification, a yes/no, a number) and independent opinions reduce error. ' +
    'vote.strategy: "majority" (default), "weighted" (by confidence) or "unanimous"; vote.key: a JSON pointer into each answer to compare ("/label"). ' +
    WAITING +
    '\nExample: {"objective":"Is this change safe?","tasks":[{"id":"v1","question":"Is this SQL migration backward compatible? …","agent":"reviewer-a"},' +
    '{"id":"v2","question":"Is this SQL migration backward compatible? …","agent":"reviewer-b"},{"id":"v3","question":"Is this SQL migration backward compatible? …","agent":"reviewer-c"}],' +
    '"vote":{"strategy":"majority","key":"/compatible"}}',
  job_status:
    "A job's state (running, completed, …), progress (subtasks pending / running / finished), per-subtask status and budget ledger; the result once done. " +
    'Cheap: use it to check on a job without waiting. Example: {"jobId":"3f2a…"}',
  job_result:
    "A job's result (status success / partial / failure, the merged output, each subtask's answer, evidence, spend), " +
    'waiting up to waitSeconds (default 0, at most 60) for a running job; a job still running answers with its status instead. ' +
    'Example: {"jobId":"3f2a…","waitSeconds":30}',
  job_stop:
    'Graceful stop: running subtasks finish their current step and return what they have; the job ends "partial". ' +
    'Use it when enough is known already. Example: {"jobId":"3f2a…"}',
  job_cancel:
    'Hard cancel: running subtasks are cancelled now; results already finished are kept. Use it when the job is no longer wanted. ' +
    'Example: {"jobId":"3f2a…"}',
  job_add_budget:
    "Add to a running job's budget (amounts are added to the limits), or to one running subtask's with taskId (within what the job has left). " +
    'Use it when a job is halting on its budget and the work is worth more. Returns the new ledger (limit, spent, reserved, remaining per axis). ' +
    'Example: {"jobId":"3f2a…","add":{"costUsd":0.5}}',
  list_agents:
    'The agents this deployment can run: id, description, capabilities, input parameters (JSON Schema), limits and tools. ' +
    'Read it before delegating to pick agents by id or capability. Example: {}',
  delegate_research_subtask:
    'One research subtask in the research-subtask contract (snake_case, as planners write it): the host runs it under its budget ' +
    '(latency_seconds, cost_usd, tool_calls; a halt on any is "partial"), enforces stop_conditions between steps ("budget exhausted", ' +
    '"confidence >= 0.8", "evidence >= 5", "answer matches schema", or free text for a judge), never re-fetches context_seed, and returns the contract\'s output: ' +
    'id, status, summary (3–6 sentences), slim evidence, citations (each an evidence url), follow_ups, metrics, failure_reason, and a delegate block ' +
    '(job_id, stopped_by, what was dropped). No agent needed: routing picks one from scope and the question (agent and params are an optional Delegate extension). ' +
    'Waits up to waitSeconds (default 45); one still running answers { id, job_id, status: "running" }: research_subtask_result follows it. ' +
    '\nExample: {"id":"sub_1","parent_id":"plan_7","question":"Which PostgreSQL extensions speed up analytics?","scope":["web"],' +
    '"budget":{"latency_seconds":120,"cost_usd":0.5,"tool_calls":20},"stop_conditions":["evidence >= 5"]}',
  research_subtask_result:
    "A research subtask's contract output by the job_id delegate_research_subtask returned, waiting up to waitSeconds (default 0, at most 60); " +
    'one still running answers { status: "running" } again. Example: {"jobId":"3f2a…","waitSeconds":30}',
  delegate_scout:
    'A read-only code scout: a question about the code ("where is the circuit breaker opened") answered by a subagent that may only read_file and grep ' +
    'inside scopePaths (relative to the scout root), so that you need not read the files yourself. Returns its report, kept small (~500 tokens): ' +
    'findings (file, line, the exact line as evidence, relevance, explanation; fabricated ones are dropped by the host), confidence, recommendation, ' +
    'files_inspected, status (success, partial, no_findings, error). parentSessionExcerpt (50–1000 characters) says why you ask. ' +
    'Refused before dispatch over a cap per parent session or per scope (429 with code scout_cap_exceeded and the caps left), ' +
    'or for a scope outside the root (422 path_outside_root). Waits up to waitSeconds (default 45); without a report by then, scout_report follows it. ' +
    '\nExample: {"question":"where is computeBackoff defined","scopePaths":["src"],"parentAgent":"claude-code","parentSessionId":"s-42",' +
    '"featureSlug":"retry-policy","parentSessionExcerpt":"Changing the retry policy; I need to know where the backoff delay is computed."}',
  scout_prep:
    'Prep a read-only code scout that YOU run with your own sub-agent (tools Read and Grep only, in an isolated context): checks the scope and the caps ' +
    'and takes an id; answers the id, the prompt to give the sub-agent, its tools, the report size and the caps left. Then send the JSON the sub-agent ' +
    'wrote to scout_submit_report. Refused over a cap (429 scout_cap_exceeded) or for a scope outside the root (422 path_outside_root).',
  scout_submit_report:
    "Validate, and commit, the report your sub-agent wrote for a scout from scout_prep. An invalid report (schema, or a path outside the prep's scope) " +
    "is refused with each fault's JSON path: re-prompt the sub-agent once with them; a second invalid report is final (the scout ends as error). " +
    'validateOnly: true checks without committing. Example: {"id":"scout-retry-policy-20261201-a1b2c3","report":{"findings":[],"confidence":"low",' +
    '"recommendation":"Nothing in scope computes a backoff; widen the scope to src/.","files_inspected":["src/lib/backoff.ts"],"status":"no_findings"}}',
  scout_report:
    "A scout's report by the id delegate_scout returned, waiting up to waitSeconds (default 0, at most 60) for it; " +
    'a scout still running answers its state. Example: {"id":"scout-retry-policy-20261201-a1b2c3","waitSeconds":30}',
} as const;

/** A role's task types with the output kinds each allows: `code_review → review; risk_scan → report`. */
export const describeKinds = (outputKinds: Record<string, string[]>) =>
  Object.entries(outputKinds)
    .map(([type, kinds]) => `${type} → ${kinds.join(' | ')}`)
    .join('; ');

/** The description of a role's `delegate_<role>` tool: what the role fixes, what the call gives, what comes back. */
export function roleToolDoc(role: {
  id: string;
  agent: string;
  tools: string[];
  maxDepth: number;
  outputKinds: Record<string, string[]>;
}): string {
  return (
    `Hand one task to the "${role.id}" specialist (played by agent "${role.agent}"). The role fixes the persona, the agent and its provider, ` +
    `the depth cap (${role.maxDepth}), the output schema and the tool allowlist (${role.tools.join(', ') || 'no tools'}); ` +
    'you give only the dynamic part: taskType, question, constraints (and completionCriteria, authority, subject for a review). ' +
    `Task types and the output kinds they allow: ${describeKinds(role.outputKinds)}. ` +
    'The host holds the task back until the child asks for it, makes it load its skills, and checks its output before it counts. ' +
    'The answer is the checked output ({ result: <kind> }, or a decision: decline / need_more_information, then status "partial"), ' +
    'what the host observed (role: bootstrapped, loadedSkills, outputKind, model, maxOutputTokens) and the spend. ' +
    'Waits up to waitSeconds (default 45); a job still running then is followed with job_result. A role task never waits for a human.' +
    `\nExample: {"taskType":"${Object.keys(role.outputKinds)[0]}","question":"…","constraints":["cite the lines"]}`
  );
}
