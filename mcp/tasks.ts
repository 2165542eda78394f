/**
 * Task-augmented calls of the delegation tools (MCP 2025-11-25 Tasks): the call starts the job
 * and answers its task at once; `tasks/get` reads the job, `tasks/result` follows the job's
 * events (a `notifications/tasks/status` per finished subtask) and then gives the tool's own
 * answer, `tasks/cancel` cancels the job. A plain call of the same tool runs its own handler
 * as before (wait, waitSeconds, progress), not the SDK's create-then-poll.
 *
 *   tools/call { task } ──start(args)──> job ──> { task: { taskId: "job:<jobId>", status: "working" } }
 *   tasks/result ──job events──> notifications/tasks/status … ──job ended──> the tool's answer
 */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  isTerminal,
  type CreateTaskRequestHandlerExtra,
  type TaskRequestHandlerExtra,
  type TaskStore,
} from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import {
  ErrorCode,
  GetTaskPayloadRequestSchema,
  McpError,
  RELATED_TASK_META_KEY,
  type CallToolRequest,
  type CallToolResult,
  type ServerResult,
  type Task,
  type ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ZodObject, ZodRawShape } from 'zod';
import { DelegateError, type DelegateBackend } from './backend';
import { jobOfTask, TASK_POLL_MS } from './task-store';
import { failed, type ToolExtra } from './tool-helpers';

/** What a server offers of Tasks: task-augmented tools/call and tasks/cancel (no tasks/list: jobs are listed by the API). */
export const TASK_CAPABILITIES = { cancel: {}, requests: { tools: { call: {} } } };

/** A plain call's handler (the tool as it was). */
type PlainCall = (args: Record<string, unknown>, extra: ToolExtra) => Promise<CallToolResult>;
/** Starts a task's job from the call's arguments: its task id, or the tool error of a refused input. */
export type StartTask = (args: Record<string, unknown>) => Promise<string | CallToolResult>;

/** See progress.ts: the SDK's client would drop a notification read in the same chunk as the answer. */
const LAST_NOTICE_GAP_MS = 50;

/** The SDK's own members this module steers (pinned SDK, covered by test/mcp/tasks.test.ts). */
interface SdkInternals {
  handleAutomaticTaskPolling(tool: RegisteredTool, request: CallToolRequest, extra: ToolExtra): Promise<CallToolResult>;
  validateToolInput(tool: RegisteredTool, args: unknown, name: string): Promise<unknown>;
  validateToolOutput(tool: RegisteredTool, result: CallToolResult, name: string): Promise<void>;
}

/** A task tool's listing: its description, compact input, behaviour and output (tool-schemas.ts). */
export interface TaskToolConfig {
  description: string;
  inputSchema: ZodRawShape | ZodObject;
  annotations: ToolAnnotations;
  outputSchema: ZodObject;
}

/**
 * The task of a call refused before any job started (an invalid spec, a cap): failed at once,
 * the refusal as its message, and a ttl of 0 (nothing is kept, so its id is not found later).
 * McpServer would turn a thrown refusal into a tool result, which no task-augmented caller accepts.
 */
function refusedTask(error: CallToolResult): Task {
  const now = new Date().toISOString();
  const text = error.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  return { taskId: `refused:${randomUUID()}`, status: 'failed', ttl: 0, createdAt: now, lastUpdatedAt: now, statusMessage: text };
}

/** Follows a task until its job has ended, sending its status on every change the job's events announce. */
async function followTask(backend: DelegateBackend, store: TaskStore, taskId: string, extra: ToolExtra): Promise<void> {
  let said = '';
  const check = async (): Promise<Task | null> => {
    const task = await store.getTask(taskId);
    const now = task ? `${task.status} ${task.statusMessage ?? ''}` : '';
    if (task && now !== said) {
      said = now;
      await extra.sendNotification({ method: 'notifications/tasks/status', params: task }).catch(() => undefined);
    }
    return task;
  };
  const jobId = await jobOfTask(backend, taskId);
  if (jobId) {
    try {
      for await (const e of backend.events(jobId, 0, extra.signal)) {
        if (e.type !== 'subtask.finished' && e.type !== 'job.finished') continue;
        await check();
        if (e.type === 'job.finished') break;
      }
    } catch {
      // a deployment without events: the view below is asked instead
    }
  }
  // the job ended (or has no events): its record, or a scout's commit, may lag its last event
  while (!extra.signal.aborted) {
    const task = await check();
    if (!task || isTerminal(task.status)) break;
    await sleep(TASK_POLL_MS, undefined, { signal: extra.signal }).catch(() => undefined);
  }
  await sleep(LAST_NOTICE_GAP_MS);
}

/** Turns on Tasks for `server` over `store`; returns how to register a tool that takes both plain and task-augmented calls. */
export function enableTasks(server: McpServer, backend: DelegateBackend, store: TaskStore) {
  const plainCalls = new Map<string, PlainCall>();
  const sdk = server as unknown as SdkInternals;
  // a plain call of a task tool: its own handler, as before (the SDK would create a task and poll it)
  sdk.handleAutomaticTaskPolling = async (tool, request, extra) => {
    const args = await sdk.validateToolInput(tool, request.params.arguments, request.params.name);
    const result = await plainCalls.get(request.params.name)!(args as Record<string, unknown>, extra);
    // as the SDK checks a plain tool's answer: structuredContent must match the outputSchema
    await sdk.validateToolOutput(tool, result, request.params.name);
    return result;
  };
  // tasks/result: the SDK's waits in silence; this one relays the job's progress while it waits
  server.server.setRequestHandler(GetTaskPayloadRequestSchema, async (request, extra) => {
    const { taskId } = request.params;
    const task = await store.getTask(taskId);
    if (!task) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
    if (!isTerminal(task.status)) await followTask(backend, store, taskId, extra);
    const result = await store.getTaskResult(taskId);
    return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } } as ServerResult;
  });

  return {
    /** Registers `name` for plain calls (`plain`) and task-augmented ones (`start`, then the store). */
    register(name: string, config: TaskToolConfig, plain: PlainCall, start: StartTask): void {
      plainCalls.set(name, plain);
      server.experimental.tasks.registerToolTask(
        name,
        { ...config, execution: { taskSupport: 'optional' } },
        {
          createTask: async (args: unknown, extra: CreateTaskRequestHandlerExtra) => {
            let started: string | CallToolResult;
            try {
              started = await start(args as Record<string, unknown>);
            } catch (err) {
              started = failed(err instanceof DelegateError ? err.message : `Delegate could not be reached: ${(err as Error).message}`);
            }
            if (typeof started !== 'string') return { task: refusedTask(started) };
            return { task: await extra.taskStore.createTask({ context: { taskId: started } }) };
          },
          getTask: async (_args: unknown, extra: TaskRequestHandlerExtra) => extra.taskStore.getTask(extra.taskId),
          getTaskResult: async (_args: unknown, extra: TaskRequestHandlerExtra) =>
            (await extra.taskStore.getTaskResult(extra.taskId)) as CallToolResult,
        },
      );
    },
  };
}
