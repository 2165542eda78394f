/**
 * Delegate as an MCP server: the three delegation patterns as tools that submit a job and
 * (by default) wait for its result with progress, the job controls as tools, and finished
 * jobs' results as resources. Transport-free: `/mcp` (streamable HTTP) and `delegate mcp`
 * (stdio) connect it to their own backend.
 *
 *   delegate_fanout / _pipeline / _vote ──submit──> job ──events/view──> progress ──result──> tool answer
 *   job_status · job_result · job_stop · job_cancel · job_add_budget · job_replay · list_agents
 *   delegate_research_subtask · research_subtask_result · delegate_scout · scout_report  (contract-tools.ts)
 *   delegate_<role> for every specialist role, only when roles are configured  (role-tools.ts)
 *   delegate://jobs/{jobId}/result · delegate://docs/tools/{name}  (resources.ts; resources/list pages with a cursor)
 *
 * What tools/list shows is kept small (tool-docs.ts, tool-schemas.ts): every harness reads it on connect.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { RoleEntry } from 'delegate/client';
import { BudgetTopUpSchema, countSubtasks, JobSpecSchema, type JobResult, type JobSpec, type Pattern } from '../schemas';
import { jobAnswer } from './answers';
import type { DelegateBackend } from './backend';
import { registerApprovalTools } from './approval-tools';
import { registerContractTools } from './contract-tools';
import { registerRoleTools } from './role-tools';
import { registerReplayTool } from './replay-tool';
import { createDelegateTaskStore, taskIdOf } from './task-store';
import { enableTasks, TASK_CAPABILITIES } from './tasks';
import { elicitVia, followInbox } from './elicitation';
import { followProgress, type Progress } from './progress';
import { registerResources } from './resources';
import { listing } from './tool-docs';
import { invalid, json, POLL_SECONDS, tool, type ToolExtra } from './tool-helpers';
import { TOOL_REFERENCE } from './tool-reference';
import { idArg, JobIdShape, OUTPUT, patternInput, topUpArg, waitArg } from './tool-schemas';

/** The server's name and version in the MCP handshake. */
const MCP_SERVER_INFO = { name: 'delegate', version: '0.1.0' };

/** Options of `createDelegateMcpServer`. */
export interface DelegateMcpServerOptions {
  /**
   * What the client declared at initialize, where this server did not see it (stateless HTTP: each
   * POST has its own server; the session id carries them). @default the server's own handshake's
   */
  clientCapabilities?: ClientCapabilities;
  /** The deployment's specialist roles: one `delegate_<role>` tool each (role-tools.ts). @default none */
  roles?: readonly RoleEntry[];
  /** Jobs of the listing read for one page of resources/list. @default RESOURCE_PAGE_SIZE (50) */
  resourcePageSize?: number;
}

/** Whether the client takes form elicitation (an empty `elicitation` means form, as the spec says). */
export function elicitsForms(caps: ClientCapabilities | undefined): boolean {
  const e = caps?.elicitation as { form?: object; url?: object } | undefined;
  return e !== undefined && (e.form !== undefined || e.url === undefined);
}

/** Waits for a job's result up to `waitSeconds`, sending progress when the caller asked for it, and the job's inbox items to a client that elicits. */
async function awaitResult(
  backend: DelegateBackend,
  jobId: string,
  total: number,
  waitSeconds: number,
  extra: ToolExtra,
  elicits: boolean,
  answer: (jobId: string, result: JobResult) => CallToolResult = jobAnswer,
): Promise<CallToolResult> {
  const token = extra._meta?.progressToken;
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  extra.signal.addEventListener('abort', onAbort, { once: true });
  const send = (p: Progress) => extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token!, ...p } });
  const follower = token === undefined ? undefined : followProgress(backend, jobId, total, send, stop.signal);
  const inbox = elicits ? followInbox(backend, jobId, elicitVia(extra), stop.signal) : undefined;
  try {
    const deadline = Date.now() + waitSeconds * 1000;
    for (;;) {
      const left = (deadline - Date.now()) / 1000;
      const result = await backend.result(jobId, Math.max(0, Math.min(left, POLL_SECONDS)));
      if (result) {
        await follower?.finish(`job ${result.status}`);
        return answer(jobId, result);
      }
      if (left <= POLL_SECONDS || extra.signal.aborted) break;
    }
    return await stillRunning(backend, jobId, 'still running: call job_result (waitSeconds) or job_status with this jobId', inbox?.notes);
  } finally {
    extra.signal.removeEventListener('abort', onAbort);
    stop.abort();
    await Promise.all([follower?.stopped, inbox?.stopped]);
  }
}

/** A tool's answer for a job that still runs when its wait ends: its state and progress, and the inbox items left pending. */
async function stillRunning(backend: DelegateBackend, jobId: string, note: string, inbox: string[] | undefined): Promise<CallToolResult> {
  const view = await backend.view(jobId);
  return json({ jobId, state: view.state, progress: view.progress, note, ...(inbox?.length ? { inbox } : {}) });
}

/** The job spec of a pattern tool's arguments, or the tool error that lists what is wrong. */
function specOf(
  args: Record<string, unknown>,
  pattern: Pattern,
): { spec: JobSpec; error?: never } | { spec?: never; error: CallToolResult } {
  // the whole spec's rules (unique task ids, agent or job, caps) on top of the per-field ones
  const parsed = JobSpecSchema.safeParse({ ...args, pattern });
  return parsed.success ? { spec: parsed.data } : { error: invalid('job spec', parsed.error.issues) };
}

/** Creates the MCP server over a backend (one tenant's); its delegation tools also take task-augmented calls (tasks.ts). */
export function createDelegateMcpServer(backend: DelegateBackend, options: DelegateMcpServerOptions = {}): McpServer {
  const taskStore = createDelegateTaskStore(backend);
  const server = new McpServer(MCP_SERVER_INFO, {
    capabilities: { resources: {}, tools: {}, tasks: TASK_CAPABILITIES },
    taskStore,
  });
  const elicits = () => elicitsForms(options.clientCapabilities ?? server.server.getClientCapabilities());
  const tasks = enableTasks(server, backend, taskStore);

  const patterns: [name: 'delegate_fanout' | 'delegate_pipeline' | 'delegate_vote', pattern: Pattern][] = [
    ['delegate_fanout', 'fanout'],
    ['delegate_pipeline', 'pipeline'],
    ['delegate_vote', 'vote'],
  ];
  for (const [name, pattern] of patterns) {
    tasks.register(
      name,
      listing(name, patternInput(pattern), OUTPUT.job),
      tool(async (args: Record<string, unknown>, extra) => {
        const { wait, waitSeconds, ...rest } = args as { wait: boolean; waitSeconds: number };
        const { spec, error } = specOf(rest, pattern);
        if (!spec) return error;
        const sub = await backend.submit(spec);
        if (!wait) return json({ jobId: sub.jobId, created: sub.created, state: 'running' });
        return awaitResult(backend, sub.jobId, countSubtasks(spec), waitSeconds, extra, elicits());
      }),
      async ({ wait: _wait, waitSeconds: _waitSeconds, ...rest }) => {
        const { spec, error } = specOf(rest, pattern);
        return spec ? taskIdOf('job', (await backend.submit(spec)).jobId) : error;
      },
    );
  }

  server.registerTool(
    'job_status',
    listing('job_status', JobIdShape, OUTPUT.view),
    tool(async ({ jobId }: { jobId: string }) => json(await backend.view(jobId))),
  );

  server.registerTool(
    'job_result',
    listing('job_result', { ...JobIdShape, waitSeconds: waitArg(0, 60) }, OUTPUT.job),
    tool(async ({ jobId, waitSeconds }: { jobId: string; waitSeconds: number }, extra) => {
      // a client that elicits answers the job's inbox while it waits
      const stop = new AbortController();
      const inbox = waitSeconds > 0 && elicits() ? followInbox(backend, jobId, elicitVia(extra), stop.signal) : undefined;
      try {
        const result = await backend.result(jobId, waitSeconds);
        if (result) return json({ jobId, status: result.status, result });
        return await stillRunning(backend, jobId, 'still running', inbox?.notes);
      } finally {
        stop.abort();
        await inbox?.stopped;
      }
    }),
  );

  const controls = [
    ['job_stop', 'stop', 'stopping'],
    ['job_cancel', 'cancel', 'cancelling'],
  ] as const;
  for (const [name, verb, state] of controls) {
    server.registerTool(
      name,
      listing(name, JobIdShape, OUTPUT.control),
      tool(async ({ jobId }: { jobId: string }) => {
        await backend[verb](jobId);
        return json({ jobId, state });
      }),
    );
  }

  server.registerTool(
    'job_add_budget',
    listing(
      'job_add_budget',
      { ...JobIdShape, add: topUpArg(), taskId: idArg('top up this running subtask only').optional() },
      OUTPUT.ledger,
    ),
    tool(async ({ jobId, add, taskId }: { jobId: string; add: Record<string, number | undefined>; taskId?: string }) => {
      // the listing's shape is compact: the top-up's own rules (positive, at least one axis, caps) are checked here
      const parsed = BudgetTopUpSchema.safeParse({ add });
      if (!parsed.success) return invalid('top-up', parsed.error.issues);
      return json({ jobId, ...(taskId ? { taskId } : {}), ledger: await backend.topUp(jobId, parsed.data.add, taskId) });
    }),
  );

  server.registerTool(
    'list_agents',
    listing('list_agents', {}, OUTPUT.agents),
    tool(async () => json({ agents: await backend.agents() })),
  );

  registerContractTools(server, backend, tasks);
  // one task each: progress counts that task
  const roleReferences = registerRoleTools(backend, tasks, options.roles ?? [], (jobId, waitSeconds, extra, answer) =>
    awaitResult(backend, jobId, 1, waitSeconds, extra, elicits(), answer),
  );
  registerApprovalTools(server, backend);
  registerReplayTool(server, backend);
  registerResources(server, backend, new Map([...Object.entries(TOOL_REFERENCE), ...roleReferences]), options.resourcePageSize);

  return server;
}
