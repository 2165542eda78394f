/**
 * The long reference of each tool, as an MCP resource: when each pattern fits, what comes back,
 * an example, and the full input schema where the listing shows a compact one. `tools/list` carries
 * one or two sentences per tool (tool-docs.ts), read by every harness on every connect; a model
 * reads this only for the tool it is about to use.
 *
 *   tools/list: description "… Reference: delegate://docs/tools/delegate_fanout"
 *   resources/read delegate://docs/tools/delegate_fanout ──> markdown: prose, example, input JSON Schema
 */
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError, ErrorCode, type Resource } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { JobSpecSchema } from '../schemas';
import { ResearchInputObject } from '../schemas/research-contract';
import { ScoutRequestSchema } from '../schemas/scout';

/** The URI of a tool's reference. */
export const referenceUri = (tool: string) => `delegate://docs/tools/${tool}`;

/** A tool's reference: its prose, and the full input schema where the listing shows a compact one. */
export interface ToolReference {
  text: string;
  input?: z.ZodType;
}

const WAITING =
  'By default the call waits for the result (up to waitSeconds, default 45) and reports progress (subtasks finished / total) ' +
  'when the request carries a progressToken; a job still running then is not lost: its jobId comes back, and job_result or job_status follow it. ' +
  'With wait: false it returns the jobId at once. The job runs durably either way: cancelling this call does not cancel the job (job_cancel does). ' +
  'Agents are named by id or by { "capability": "…" } (list_agents shows them); budget caps spend per job ({ "costUsd": 1, "tokens": 200000 }) and per task. ' +
  'Every JobSpec field of POST /v1/jobs but pattern is taken (approval, priority, maxParallel, labels, callbackUrl, …); the full schema is below.';

const { pattern: _pattern, aggregation, vote, pipeline, ...common } = JobSpecSchema.shape;
const waitShape = { wait: z.boolean().default(true), waitSeconds: z.number().min(0).max(3600).default(45) };
/** A pattern tool's full input: the JobSpec without `pattern`, its own options, and the wait. */
const jobInput = (options: z.ZodRawShape) => z.object({ ...common, ...options, ...waitShape });

/** The reference of each tool of the default set, by name. */
export const TOOL_REFERENCE: Record<string, ToolReference> = {
  delegate_fanout: {
    text:
      'Fan-out: run independent subtasks in parallel, each handed to one agent, and merge their answers. ' +
      'Use it when a question splits into parts that do not depend on each other (research several sources, check several files, ' +
      'compare several options). aggregation.strategy: "merge" (every answer, by task id), "best_confidence" or "first_success"; ' +
      'aggregation.quorum stops after n successes. ' +
      WAITING +
      '\n\nExample: {"objective":"Compare three databases","tasks":[{"id":"pg","question":"Strengths of PostgreSQL for analytics?","agent":"researcher"},' +
      '{"id":"ch","question":"Strengths of ClickHouse for analytics?","agent":"researcher"},{"id":"duck","question":"Strengths of DuckDB for analytics?","agent":"researcher"}],' +
      '"budget":{"costUsd":2}}',
    input: jobInput({ aggregation }),
  },
  delegate_pipeline: {
    text:
      "Pipeline: run subtasks one after another, each stage receiving the previous stages' results as context. " +
      'Use it when each step needs the one before (gather → analyse → write; extract → check → summarise). ' +
      'pipeline.onStageFailure: "stop" (default) or "continue". ' +
      WAITING +
      '\n\nExample: {"objective":"A release note","tasks":[{"id":"gather","question":"List the merged changes since v1.2","agent":"git-reader"},' +
      '{"id":"draft","question":"Write a release note from these changes","agent":{"capability":"writing"}}]}',
    input: jobInput({ pipeline }),
  },
  delegate_vote: {
    text:
      'Vote: ask the same question of several agents (or the same agent several times) and keep the answer they agree on. ' +
      'Use it when one answer must be reliable (a classification, a yes/no, a number) and independent opinions reduce error. ' +
      'vote.strategy: "majority" (default), "weighted" (by confidence) or "unanimous"; vote.key: a JSON pointer into each answer to compare ("/label"). ' +
      WAITING +
      '\n\nExample: {"objective":"Is this change safe?","tasks":[{"id":"v1","question":"Is this SQL migration backward compatible? …","agent":"reviewer-a"},' +
      '{"id":"v2","question":"Is this SQL migration backward compatible? …","agent":"reviewer-b"},{"id":"v3","question":"Is this SQL migration backward compatible? …","agent":"reviewer-c"}],' +
      '"vote":{"strategy":"majority","key":"/compatible"}}',
    input: jobInput({ vote }),
  },
  job_status: {
    text:
      "A job's state (running, completed, …), progress (subtasks pending / running / finished), per-subtask status and budget ledger; the result once done. " +
      'Cheap: use it to check on a job without waiting.\n\nExample: {"jobId":"3f2a…"}',
  },
  job_result: {
    text:
      "A job's result (status success / partial / failure, the merged output, each subtask's answer, evidence, spend), " +
      'waiting up to waitSeconds (default 0, at most 60) for a running job; a job still running answers with its state and progress instead. ' +
      'A client that takes form elicitation is asked the job\'s approvals and questions while it waits.\n\nExample: {"jobId":"3f2a…","waitSeconds":30}',
  },
  job_stop: {
    text:
      'Graceful stop: running subtasks finish their current step and return what they have; the job ends "partial". ' +
      'Use it when enough is known already. A job already finished is refused (409).\n\nExample: {"jobId":"3f2a…"}',
  },
  job_cancel: {
    text:
      'Hard cancel: running subtasks are cancelled now; results already finished are kept. Use it when the job is no longer wanted.' +
      '\n\nExample: {"jobId":"3f2a…"}',
  },
  job_add_budget: {
    text:
      "Add to a running job's budget (amounts are added to the limits), or to one running subtask's with taskId (within what the job has left). " +
      'Use it when a job is halting on its budget and the work is worth more. Returns the new ledger (limit, spent, reserved, remaining per axis).' +
      '\n\nExample: {"jobId":"3f2a…","add":{"costUsd":0.5}}',
  },
  job_replay: {
    text:
      'Replay a finished job: its subtasks (all, or the task ids given) run again as a new job on another agent (agent) or model (model), labelled replayOf. ' +
      'The answer, once the replay is done, is the comparison: per subtask the status, agent, cost, tokens and latency of both runs and whether the outputs are equal; ' +
      'then the totals (cost and latency ratios, how many outputs equal). Waits up to waitSeconds (default 45); a replay still running answers its id (replayId): ' +
      'the same call again with that replayId waits for the same replay (a replayId names the replay job; without one each call is a new replay, <jobId>-replay-<n>). ' +
      'Works after Temporal deleted the job: the record keeps its spec.' +
      '\n\nExample: {"jobId":"compare-dbs-1","agent":"researcher-mini","tasks":["pg"]}',
  },
  list_agents: {
    text:
      'The agents this deployment can run: id, description, capabilities, input parameters (JSON Schema), limits and tools. ' +
      'Read it before delegating to pick agents by id or capability.\n\nExample: {}',
  },
  delegate_research_subtask: {
    text:
      'One research subtask in the research-subtask contract (snake_case, as planners write it): the host runs it under its budget ' +
      '(latency_seconds, cost_usd, tool_calls; a halt on any is "partial"), enforces stop_conditions between steps ("budget exhausted", ' +
      '"confidence >= 0.8", "evidence >= 5", "answer matches schema", or free text for a judge), never re-fetches context_seed, and returns the contract\'s output: ' +
      'id, status, summary (3–6 sentences), slim evidence, citations (each an evidence url), follow_ups, metrics, failure_reason, and a delegate block ' +
      '(job_id, stopped_by, what was dropped). No agent needed: routing picks one from scope and the question (agent and params are an optional Delegate extension). ' +
      'Waits up to waitSeconds (default 45); one still running answers { id, job_id, status: "running" }: research_subtask_result follows it.' +
      '\n\nExample: {"id":"sub_1","parent_id":"plan_7","question":"Which PostgreSQL extensions speed up analytics?","scope":["web"],' +
      '"budget":{"latency_seconds":120,"cost_usd":0.5,"tool_calls":20},"stop_conditions":["evidence >= 5"]}',
    input: ResearchInputObject.extend({ waitSeconds: waitShape.waitSeconds }),
  },
  research_subtask_result: {
    text:
      "A research subtask's contract output by the job_id delegate_research_subtask returned, waiting up to waitSeconds (default 0, at most 60); " +
      'one still running answers { status: "running" } again.\n\nExample: {"jobId":"3f2a…","waitSeconds":30}',
  },
  delegate_scout: {
    text:
      'A read-only code scout: a question about the code ("where is the circuit breaker opened") answered by a subagent that may only read_file and grep ' +
      'inside scopePaths (relative to the scout root), so that you need not read the files yourself. Returns its report, kept small (~500 tokens): ' +
      'findings (file, line, the exact line as evidence, relevance, explanation; fabricated ones are dropped by the host), confidence, recommendation, ' +
      'files_inspected, status (success, partial, no_findings, error). parentSessionExcerpt (50–1000 characters) says why you ask. ' +
      'Refused before dispatch over a cap per parent session or per scope (429 with code scout_cap_exceeded and the caps left), ' +
      'or for a scope outside the root (422 path_outside_root). Waits up to waitSeconds (default 45); without a report by then, scout_report follows it. ' +
      "agent (a Delegate extension) names the scout agent; default: the deployment's." +
      '\n\nExample: {"question":"where is computeBackoff defined","scopePaths":["src"],"parentAgent":"claude-code","parentSessionId":"s-42",' +
      '"featureSlug":"retry-policy","parentSessionExcerpt":"Changing the retry policy; I need to know where the backoff delay is computed."}',
    input: ScoutRequestSchema.extend({ agent: z.string().min(1).max(128).optional(), waitSeconds: waitShape.waitSeconds }),
  },
  scout_report: {
    text:
      "A scout's report by the id delegate_scout returned, waiting up to waitSeconds (default 0, at most 60) for it; " +
      'a scout still running answers its state.\n\nExample: {"id":"scout-retry-policy-20261201-a1b2c3","waitSeconds":30}',
  },
  scout_prep: {
    text:
      'Prep a read-only code scout that YOU run with your own sub-agent (tools Read and Grep only, in an isolated context): checks the scope and the caps ' +
      'and takes an id; answers the id, the prompt to give the sub-agent, its tools, the report size and the caps left. Then send the JSON the sub-agent ' +
      'wrote to scout_submit_report. Refused over a cap (429 scout_cap_exceeded) or for a scope outside the root (422 path_outside_root). ' +
      'It takes the same request as delegate_scout.',
    input: ScoutRequestSchema,
  },
  scout_submit_report: {
    text:
      "Validate, and commit, the report your sub-agent wrote for a scout from scout_prep. An invalid report (schema, or a path outside the prep's scope) " +
      "is refused with each fault's JSON path: re-prompt the sub-agent once with them; a second invalid report is final (the scout ends as error). " +
      'validateOnly: true checks without committing.\n\nExample: {"id":"scout-retry-policy-20261201-a1b2c3","report":{"findings":[],"confidence":"low",' +
      '"recommendation":"Nothing in scope computes a backoff; widen the scope to src/.","files_inspected":["src/lib/backoff.ts"],"status":"no_findings"}}',
  },
  delegate_approvals: {
    text:
      'The inbox of your delegated jobs: approvals (before a task starts, before a costly step, before a named tool call), ' +
      'questions a subagent asked instead of answering (detail.question, and detail.answerSchema the answer must satisfy), and jobs waiting for a budget top-up. ' +
      'Each waits until decided or until expiresAt, then follows onTimeout (fail, skip, fallback). Pending ones by default; filter by jobId, labels or state.',
  },
  delegate_decide: {
    text:
      'Decide one inbox item: { "id": "…", "decision": "approve" } or "reject" for an approval; { "id": "…", "answer": <JSON> } for a question ' +
      '(checked against its answerSchema: a refusal names the field). A note says why; it is kept with the decision in the job record.',
  },
};

/** A reference as markdown: the prose, then the full input schema when there is one. */
function markdown(name: string, ref: ToolReference): string {
  const schema = ref.input ? z.toJSONSchema(ref.input, { io: 'input', target: 'draft-07' }) : undefined;
  return [
    `# ${name}`,
    '',
    ref.text,
    ...(schema ? ['', '## Input (JSON Schema)', '', '```json', JSON.stringify(schema, null, 2), '```'] : []),
  ].join('\n');
}

/** The tool references as resources (one per entry of `refs`, read when asked) of the `delegate://docs/tools/{name}` template. */
export function registerToolReference(server: McpServer, refs: ReadonlyMap<string, ToolReference>): void {
  server.registerResource(
    'tool-reference',
    // listed by the paged resources/list (resources.ts)
    new ResourceTemplate(referenceUri('{name}'), { list: undefined }),
    {
      title: 'Tool reference',
      description: "A tool's full reference: when to use it, what comes back, an example, the full input schema",
      mimeType: 'text/markdown',
    },
    async (uri, vars) => {
      const name = decodeURIComponent(String(vars.name));
      const ref = refs.get(name);
      if (!ref) throw new McpError(ErrorCode.InvalidParams, `no tool "${name}"`);
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: markdown(name, ref) }] };
    },
  );
}

/** The listing of the tool references. */
export function referenceResources(refs: ReadonlyMap<string, ToolReference>): Resource[] {
  return [...refs.keys()].map((name) => ({ uri: referenceUri(name), name: `${name} reference`, mimeType: 'text/markdown' }));
}
