/**
 * Delegate as an MCP server: the three delegation patterns as tools that submit a job and
 * (by default) wait for its result with progress, the job controls as tools, and finished
 * jobs' results as resources. Transport-free: `/mcp` (streamable HTTP) and `delegate mcp`
 * (stdio) connect it to their own backend.
 *
 *   delegate_fanout / _pipeline / _vote ──submit──> job ──events/view──> progress ──result──> tool answer
 *   job_status · job_result · job_stop · job_cancel · job_add_budget · list_agents
 *   delegate_research_subtask · research_subtask_result · delegate_scout · scout_report  (contract-tools.ts)
 *   delegate_<role> for every specialist role, only when roles are configured  (role-tools.ts)
 *   delegate://jobs/{jobId}/result  (resource template; lists the tenant's finished jobs)
 */
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { RoleEntry } from 'delegate/client';
import { BudgetTopUpSchema, countSubtasks, IdSchema, JobSpecSchema, type JobResult, type JobSpec, type Pattern } from '../schemas';
import { jobAnswer, resultUri } from './answers';
import { DelegateError, type DelegateBackend } from './backend';
import { registerApprovalTools } from './approval-tools';
import { registerContractTools } from './contract-tools';
import { registerRoleTools } from './role-tools';
import { createDelegateTaskStore, taskIdOf } from './task-store';
import { enableTasks, TASK_CAPABILITIES } from './tasks';
import { elicitVia, followInbox } from './elicitation';
import { followProgress, type Progress } from './progress';
import { TOOL_DOCS } from './tool-docs';
import { failed, json, POLL_SECONDS, tool, type ToolExtra } from './tool-helpers';

/** The server's name and version in the MCP handshake. */
const MCP_SERVER_INFO = { name: 'delegate', version: '0.1.0' };

const { pattern: _pattern, aggregation, vote, pipeline, ...common } = JobSpecSchema.shape;
const waitShape = {
  wait: z.boolean().default(true).describe('wait for the result (default true); false returns the jobId at once'),
  waitSeconds: z
    .number()
    .min(0)
    .max(3600)
    .default(45)
    .describe('longest wait for the result (default 45); a job still running then keeps running'),
};
const JobIdShape = { jobId: IdSchema.describe('the jobId a delegate_* tool returned') };

/** Options of `createDelegateMcpServer`. */
export interface DelegateMcpServerOptions {
  /**
   * What the client declared at initialize, where this server did not see it (stateless HTTP: each
   * POST has its own server; the session id carries them). @default the server's own handshake's
   */
  clientCapabilities?: ClientCapabilities;
  /** The deployment's specialist roles: one `delegate_<role>` tool each (role-tools.ts). @default none */
  roles?: readonly RoleEntry[];
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
  if (parsed.success) return { spec: parsed.data };
  const error = failed(
    ['Invalid job spec:', ...parsed.error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`)].join('\n'),
  );
  return { error };
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

  const patterns: [name: 'delegate_fanout' | 'delegate_pipeline' | 'delegate_vote', pattern: Pattern, options: object][] = [
    ['delegate_fanout', 'fanout', { aggregation }],
    ['delegate_pipeline', 'pipeline', { pipeline }],
    ['delegate_vote', 'vote', { vote }],
  ];
  for (const [name, pattern, options] of patterns) {
    tasks.register(
      name,
      { description: TOOL_DOCS[name], inputSchema: { ...common, ...options, ...waitShape } },
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
    { description: TOOL_DOCS.job_status, inputSchema: JobIdShape },
    tool(async ({ jobId }: { jobId: string }) => json(await backend.view(jobId))),
  );

  server.registerTool(
    'job_result',
    {
      description: TOOL_DOCS.job_result,
      inputSchema: {
        ...JobIdShape,
        waitSeconds: z.number().min(0).max(60).default(0).describe('wait this long for a running job (default 0)'),
      },
    },
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
      { description: TOOL_DOCS[name], inputSchema: { ...JobIdShape, reason: z.string().max(500).optional() } },
      tool(async ({ jobId }: { jobId: string }) => {
        await backend[verb](jobId);
        return json({ jobId, state });
      }),
    );
  }

  server.registerTool(
    'job_add_budget',
    {
      description: TOOL_DOCS.job_add_budget,
      inputSchema: {
        ...JobIdShape,
        add: BudgetTopUpSchema.shape.add,
        taskId: IdSchema.optional().describe("a running subtask's id: top up that subtask only"),
      },
    },
    tool(async ({ jobId, add, taskId }: { jobId: string; add: Record<string, number>; taskId?: string }) =>
      json({ jobId, ...(taskId ? { taskId } : {}), ledger: await backend.topUp(jobId, add, taskId) }),
    ),
  );

  server.registerTool(
    'list_agents',
    { description: TOOL_DOCS.list_agents, inputSchema: {} },
    tool(async () => json({ agents: await backend.agents() })),
  );

  registerContractTools(server, backend, tasks);
  // one task each: progress counts that task
  registerRoleTools(backend, tasks, options.roles ?? [], (jobId, waitSeconds, extra, answer) =>
    awaitResult(backend, jobId, 1, waitSeconds, extra, elicits(), answer),
  );
  registerApprovalTools(server, backend);

  server.registerResource(
    'job-result',
    new ResourceTemplate('delegate://jobs/{jobId}/result', {
      list: async () => ({
        resources: (await backend.list({ limit: 100 }))
          .filter((j) => j.state === 'completed')
          .map((j) => ({
            uri: resultUri(j.jobId),
            name: `${j.jobId} result`,
            mimeType: 'application/json',
            description: `${j.pattern ?? 'job'} ${j.status ?? ''}, started ${j.startedAt}`,
          })),
      }),
    }),
    {
      title: 'Job result',
      description: "A finished job's JobResult (status, output, every subtask's answer, evidence, spend) as JSON",
      mimeType: 'application/json',
    },
    async (uri, vars) => {
      const jobId = decodeURIComponent(String(vars.jobId));
      const result = await backend.result(jobId, 0);
      if (!result) throw new DelegateError(409, 'Conflict', `job "${jobId}" is still running`);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(result, null, 2) }] };
    },
  );

  return server;
}
