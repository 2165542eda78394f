/**
 * Counting a job's finished agent subtasks from its live events, for anything that shows
 * progress (the CLI's line, the MCP server's notifications): each leaf once, a repeat of an
 * event not again, and never a nested job, which finishes after the subtasks it holds.
 *
 *   subtask.started (wf) ──> seen
 *   subtask.finished (wf) ──> a seen subtask under `wf/`? ──yes──> a holder: not counted
 *                                                         └─no──> done + 1
 */
import type { JobEvent } from './types.js';

/** Finished leaf subtasks of one job, event by event. */
export class FinishedSubtasks {
  /** Leaves finished so far. */
  done = 0;
  /** Workflow ids of the subtasks seen, to tell a leaf from a nested job that holds others. */
  private readonly seen = new Set<string>();
  private readonly counted = new Set<string>();

  /** Folds one event in; true when it finished a leaf not counted before. */
  add(e: JobEvent | { type: string; data: Record<string, unknown> }): boolean {
    if (e.type !== 'subtask.started' && e.type !== 'subtask.finished') return false;
    const d = e.data;
    const wf = typeof d.workflowId === 'string' ? d.workflowId : typeof d.taskId === 'string' ? d.taskId : undefined;
    if (!wf) return false;
    if (e.type === 'subtask.started') {
      this.seen.add(wf);
      return false;
    }
    if (this.counted.has(wf)) return false;
    const holder = [...this.seen].some((s) => s.startsWith(`${wf}/`));
    this.seen.add(wf);
    this.counted.add(wf);
    if (holder) return false;
    this.done++;
    return true;
  }
}
