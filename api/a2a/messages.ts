/**
 * What an A2A message asks Delegate to run: its first data part as a job spec (`tasks`) or a
 * research-contract subtask (`question`), else its text as a one-task research subtask. A message
 * that asks for nothing runnable is refused with the field paths at fault (a `rejected` task).
 *
 *   data part {pattern, tasks} ──JobSpecSchema──> job
 *   data part {id, question, budget} ──ResearchSubtaskInputSchema──> research subtask
 *   text parts ──> research subtask { question: text, budget: TEXT_BUDGET }
 */
import type { Message } from '@a2a-js/sdk';
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { JobSpecSchema, LabelValueSchema, type JobSpec } from '../../schemas';
import { ResearchSubtaskInputSchema, type ResearchSubtaskInput } from '../../schemas/research-contract';
import { formatPath, type FieldError } from '../errors';

/** The budget of a plain text message (the research contract needs one; the card says which). */
export const TEXT_BUDGET = { latency_seconds: 600, cost_usd: 1, tool_calls: 100 };

/** A message Delegate cannot run: why, and where (a `rejected` task's status message carries both). */
export class Rejection extends Error {
  override readonly name = 'Rejection';
  constructor(
    readonly detail: string,
    readonly errors: FieldError[],
  ) {
    super(detail);
  }
}

/** What a message runs. */
export type Submission =
  | { kind: 'job'; spec: JobSpec }
  /** `text`: the message was only text, so it has no field beyond its question (a refusal names none). */
  | { kind: 'research'; input: ResearchSubtaskInput; text?: true };

const issuesAt = (root: string, issues: z.core.$ZodIssue[]): FieldError[] =>
  issues.map((i) => ({ path: formatPath(i.path as PropertyKey[], root), message: i.message }));

/** The job id of a message: the messageId when it is a valid id, else its hash (the same message, the same job). */
export function jobIdOfMessage(messageId: string): string {
  if (/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/.test(messageId)) return messageId;
  return `a2a-${createHash('sha256').update(messageId).digest('hex').slice(0, 40)}`;
}

/** What a contextId may hold, in the words of a refusal. */
export const CONTEXT_ID_RULE = 'letters, digits, space and "_.:/@+-", at most 256 characters';
const ContextIdSchema = LabelValueSchema.min(1);

/** Whether a contextId can be kept as a label value (it is how ListTasks finds a context): SendMessage and ListTasks both ask. */
export const isContextId = (contextId: string): boolean => ContextIdSchema.safeParse(contextId).success;

/** Refuses a contextId that cannot be kept as a label value. */
export function checkContextId(contextId: string): void {
  if (!isContextId(contextId))
    throw new Rejection('the contextId cannot be kept', [{ path: 'message.contextId', message: CONTEXT_ID_RULE }]);
}

/** What the message runs, or a Rejection naming the fields at fault. */
export function submissionOf(message: Message): Submission {
  const at = message.parts.findIndex((p) => p.content?.$case === 'data');
  if (at >= 0) {
    const value: unknown = message.parts[at]!.content!.value;
    const root = `message.parts[${at}].data`;
    if (value !== null && typeof value === 'object' && 'tasks' in value) {
      const parsed = JobSpecSchema.safeParse(value);
      if (!parsed.success) throw new Rejection('the job spec is not valid', issuesAt(root, parsed.error.issues));
      return { kind: 'job', spec: parsed.data };
    }
    if (value !== null && typeof value === 'object' && 'question' in value) {
      const parsed = ResearchSubtaskInputSchema.safeParse(value);
      if (!parsed.success) throw new Rejection('the research subtask is not valid', issuesAt(root, parsed.error.issues));
      return { kind: 'research', input: parsed.data };
    }
    throw new Rejection('the data part is neither a job spec nor a research subtask', [
      { path: root, message: 'send a job spec ({"pattern", "tasks"}) or a research-contract subtask ({"id", "question", "budget"})' },
    ]);
  }
  const text = message.parts
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .join('\n')
    .trim();
  if (!text)
    throw new Rejection('the message asks nothing', [
      { path: 'message.parts', message: 'send a text part (a question) or a data part (a job spec)' },
    ]);
  const parsed = ResearchSubtaskInputSchema.safeParse({ id: 'a2a', question: text, budget: TEXT_BUDGET });
  if (!parsed.success) throw new Rejection('the question is not valid', issuesAt('message.parts', parsed.error.issues));
  return { kind: 'research', input: parsed.data, text: true };
}
