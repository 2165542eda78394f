/**
 * The final answers of the delegation tools, shared by a plain call (which waits for them)
 * and a task (whose `tasks/result` reads them): a job's result, a research subtask's output, a
 * scout's report, or where each still runs.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ResearchSubtaskAnswer, Scout } from 'delegate/client';
import type { JobResult } from '../schemas';
import { json } from './tool-helpers';

/** The URI of a job's result resource. */
export const resultUri = (jobId: string) => `delegate://jobs/${encodeURIComponent(jobId)}/result`;

/** A finished job's answer: its status and result, and a link to the result resource. */
export function jobAnswer(jobId: string, result: JobResult): CallToolResult {
  return withResultLink(json({ jobId, status: result.status, result }), jobId);
}

/** A JSON answer with a link to the job's result resource after its text. */
export function withResultLink(answer: CallToolResult, jobId: string): CallToolResult {
  const link = { type: 'resource_link' as const, uri: resultUri(jobId), name: `${jobId} result`, mimeType: 'application/json' };
  return { ...answer, content: [...answer.content, link] };
}

/** A research subtask's answer as the tool gives it: the output, or where it still runs. */
export function subtaskAnswer(a: ResearchSubtaskAnswer): CallToolResult {
  if (a.status !== 'running') return json(a);
  return json({ ...a, note: 'still running: call research_subtask_result with this job_id (waitSeconds) for its output' });
}

/** A scout as the tool gives it: its report once settled (small on purpose), else where to follow it. */
export function scoutAnswer(s: Scout): CallToolResult {
  if (s.state !== 'dispatched' && s.report) return json(s.report);
  if (s.state !== 'dispatched') return json(s);
  return json({ id: s.id, jobId: s.jobId, state: s.state, note: 'no report yet: call scout_report with this id (waitSeconds)' });
}
