/**
 * A Delegate job as an A2A 1.0 task: the one mapping both the A2A endpoint (api/a2a/) and the
 * push notification (webhook.ts) use, so a task reads the same however it is reached.
 *
 *   job running ──> working
 *   result success ──> completed, artifact "result" (the JobResult as a data part, a text summary)
 *   result partial ──> completed, artifact metadata { partial: true, followUps }
 *   result failure ──> failed (status message: the errors)
 *   result cancelled, job cancelled/terminated ──> canceled
 *   job failed/timed out without a result ──> failed
 *   refused at submission ──> rejected (status message: the problem's field paths)
 */
import { Role, TaskState, type Artifact, type Message, type Part, type Task } from '@a2a-js/sdk';
import type { JobResult, JobView, Ledger } from '../schemas';
import { spendMetadata } from './a2a-cost';

export { A2A_CONTEXT_LABEL, a2aContextOf } from '../core/a2a';

/** A text part. */
export const textPart = (text: string): Part => ({
  content: { $case: 'text', value: text },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

/** A structured data part. */
export const dataPart = (value: unknown): Part => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});

/** An agent message of the task (a status message). */
export function agentMessage(taskId: string, contextId: string, messageId: string, parts: Part[]): Message {
  return { messageId, contextId, taskId, role: Role.ROLE_AGENT, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

/** The A2A state of a finished job's outcome (a job stopped or cancelled before it succeeded is canceled, its work kept in the artifact). */
export function stateOfOutcome(status: JobResult['status'], results: JobResult['results'] = []): TaskState {
  if (status === 'cancelled') return TaskState.TASK_STATE_CANCELED;
  if (status !== 'success' && results.some((r) => r.failureReason === 'stopped')) return TaskState.TASK_STATE_CANCELED;
  if (status === 'failure') return TaskState.TASK_STATE_FAILED;
  return TaskState.TASK_STATE_COMPLETED;
}

/** The A2A state of a job's view (its result's outcome once it has one). */
export function stateOfView(view: Pick<JobView, 'state' | 'status' | 'result'>): TaskState {
  if (view.status) return stateOfOutcome(view.status, view.result?.results);
  if (view.state === 'running' || view.state === 'continued_as_new') return TaskState.TASK_STATE_WORKING;
  if (view.state === 'cancelled' || view.state === 'terminated') return TaskState.TASK_STATE_CANCELED;
  if (view.state === 'completed') return TaskState.TASK_STATE_COMPLETED;
  return TaskState.TASK_STATE_FAILED;
}

/** A few lines a person reads: each subtask's status and summary. */
function summaryText(result: JobResult): string {
  const lines = result.results.slice(0, 20).map((r) => `${r.id} (${r.status}): ${r.summary}`.slice(0, 500));
  return [
    `job ${result.jobId}: ${result.status}`,
    ...lines,
    ...(result.results.length > 20 ? [`… and ${result.results.length - 20} more`] : []),
  ].join('\n');
}

/** The result artifact of a finished job; a partial job says so, with its follow-ups, in the metadata. */
export function resultArtifact(result: JobResult): Artifact {
  return {
    artifactId: 'result',
    name: 'result',
    description: 'the JobResult (data part) and a summary (text part)',
    parts: [dataPart(result), textPart(summaryText(result))],
    metadata: { status: result.status, partial: result.status === 'partial', followUps: result.followUps },
    extensions: [],
  };
}

/** The status message of a finished job that did not complete: its errors. */
function failureMessage(taskId: string, contextId: string, result: JobResult): Message | undefined {
  if (result.status === 'success' || result.status === 'partial') return undefined;
  const errors = result.results.flatMap((r) => r.errors.map((e) => `${r.id}: ${e}`)).slice(0, 20);
  return agentMessage(taskId, contextId, `${taskId}:status`, [textPart(errors.join('\n') || `job ${result.status}`)]);
}

/** The task of a job; `result` when it has finished with one. */
export function taskOfJob(
  jobId: string,
  contextId: string,
  state: TaskState,
  o: { result?: JobResult; at?: string; message?: Message; ledger?: Ledger } = {},
): Task {
  const message = o.message ?? (o.result ? failureMessage(jobId, contextId, o.result) : undefined);
  return {
    id: jobId,
    contextId,
    status: { state, message, timestamp: o.at ?? new Date().toISOString() },
    artifacts: o.result ? [resultArtifact(o.result)] : [],
    history: [],
    // the spend under the cost extension's URI: the result's once finished, the ledger's so far while it runs
    metadata: o.result
      ? { delegate: { status: o.result.status, metrics: o.result.metrics }, ...spendMetadata(o.result.metrics) }
      : o.ledger
        ? spendMetadata({ costUsd: o.ledger.costUsd.spent, tokens: o.ledger.tokens.spent, toolCalls: o.ledger.toolCalls.spent })
        : undefined,
  };
}

/** The task of a finished job's result. */
export const taskOfResult = (jobId: string, contextId: string, result: JobResult, at?: string): Task =>
  taskOfJob(jobId, contextId, stateOfOutcome(result.status, result.results), { result, at });
