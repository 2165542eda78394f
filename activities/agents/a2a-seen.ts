/** The remote A2A task as a step sees it from its stream (or its blocking answers): state, last status message, artifacts. */
import { TaskState, type Artifact, type Message, type Part, type StreamResponse, type Task } from '@a2a-js/sdk';
import { reportedUsage } from '../a2a-cost';
import type { Usage } from '../../schemas';

/** States the remote task never leaves. */
const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);
/** States that end the step: the remote waits for something Delegate does not send. */
const INTERRUPTED = new Set([TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED]);

/** The text parts, joined. */
export const textOf = (parts: Part[] = []) =>
  parts
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .filter(Boolean)
    .join('\n');
/** The data parts' values. */
export const dataOf = (parts: Part[]) => parts.flatMap((p) => (p.content?.$case === 'data' ? [p.content.value as unknown] : []));

/** The remote task as it is seen so far. */
export class Seen {
  taskId?: string;
  contextId?: string;
  state?: TaskState;
  message?: Message;
  artifacts = new Map<string, Artifact>();
  /** The spend the remote reported last (the cost extension, in the task's, a status update's or a message's metadata). */
  reported?: Partial<Usage>;

  /** Keeps a reported spend: each report is the task's spend so far, so the last one wins. */
  private report(metadata: Record<string, unknown> | undefined): void {
    const usage = reportedUsage(metadata);
    if (usage) this.reported = usage;
  }

  /** Takes one stream event; returns the text of a `working` update for the progress event. */
  take(ev: StreamResponse): string | undefined {
    const p = ev.payload;
    if (!p) return undefined;
    if (p.$case === 'task') return this.task(p.value);
    if (p.$case === 'message') {
      this.message = p.value;
      this.report(p.value.metadata);
      this.state = TaskState.TASK_STATE_COMPLETED;
    } else if (p.$case === 'statusUpdate') {
      this.taskId ??= p.value.taskId;
      this.contextId ||= p.value.contextId;
      this.state = p.value.status?.state;
      this.message = p.value.status?.message;
      this.report(p.value.metadata);
      this.report(this.message?.metadata);
      if (this.state === TaskState.TASK_STATE_WORKING) return textOf(this.message?.parts) || 'working';
    } else if (p.$case === 'artifactUpdate' && p.value.artifact) {
      const a = p.value.artifact;
      const before = this.artifacts.get(a.artifactId);
      this.artifacts.set(a.artifactId, p.value.append && before ? { ...before, parts: [...before.parts, ...a.parts] } : a);
    }
    return undefined;
  }

  task(t: Task): undefined {
    this.taskId = t.id;
    this.contextId ||= t.contextId;
    this.state = t.status?.state;
    this.message = t.status?.message;
    this.report(this.message?.metadata);
    this.report(t.metadata);
    for (const a of t.artifacts) this.artifacts.set(a.artifactId, a);
    return undefined;
  }

  get over(): boolean {
    return this.state !== undefined && (TERMINAL.has(this.state) || INTERRUPTED.has(this.state));
  }

  get parts(): Part[] {
    return [...this.artifacts.values()].flatMap((a) => a.parts);
  }
}
