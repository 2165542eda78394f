/**
 * A2A's `input-required` over Delegate's inbox (pure: no server). While a subtask of the job waits
 * on an approval or a question, the task is input-required and its status message is the oldest
 * pending item (text, and a data part with its id, kind and answer schema); a message with the
 * task's id is the answer, decided through the same inbox as REST, the CLI and MCP.
 *
 *   inbox item (GetTask) | approval.requested (stream) ──inputOf──> PendingInput ──promptOf──> status message
 *   message {taskId, parts} ──answerOf──> Decision (question: the data part | the text · approval: {decision, note?} | "approve"/"reject")
 *   inbox 400/422 (body.answer.year) ──inMessage──> message.parts[0].data.year ──promptOf(refusal)──> still input-required
 */
import type { Message } from '@a2a-js/sdk';
import { agentMessage, dataPart, textPart } from '../../activities/a2a-task';
import { DecisionSchema, type Decision, type InboxItem, type JobEvent } from '../../schemas';
import { formatPath, type FieldError } from '../errors';
import { Rejection } from './messages';

/** What a waiting subtask asks, as the inbox item or its `approval.requested` event says it. */
export interface PendingInput {
  id: string;
  kind: InboxItem['kind'];
  reason: InboxItem['reason'];
  taskId?: string;
  detail: Record<string, unknown>;
  expiresAt: string;
}

/** The metadata key of a message that names the item it answers (default: the oldest pending). */
export const APPROVAL_ID_KEY = 'approvalId';

/** Whether an item is one an A2A client answers (a budget wait is the inbox's alone: a top-up, not an answer). */
export const isInput = (kind: string): boolean => kind === 'approval' || kind === 'question';

/** A pending inbox item as an input. */
export const inputOfItem = (i: InboxItem): PendingInput => ({
  id: i.id,
  kind: i.kind,
  reason: i.reason,
  ...(i.taskId ? { taskId: i.taskId } : {}),
  detail: i.detail,
  expiresAt: i.expiresAt,
});

/** An `approval.requested` event as an input. */
export function inputOfEvent(e: JobEvent): PendingInput | undefined {
  const d = e.data;
  if (e.type !== 'approval.requested' || typeof d.approvalId !== 'string' || !isInput(String(d.kind))) return undefined;
  return {
    id: d.approvalId,
    kind: d.kind as PendingInput['kind'],
    reason: d.reason as PendingInput['reason'],
    ...(typeof d.taskId === 'string' ? { taskId: d.taskId } : {}),
    detail: (d.detail ?? {}) as Record<string, unknown>,
    expiresAt: String(d.expiresAt ?? ''),
  };
}

/** What an approval waits for, in a sentence. */
function approvalText(p: PendingInput): string {
  const who = p.taskId ? `task "${p.taskId}"` : 'the job';
  const d = p.detail;
  const why =
    p.reason === 'before_start'
      ? 'before it starts'
      : p.reason === 'spend'
        ? `before step ${String(d.step)}, planned at $${String(d.plannedCostUsd)} (above $${String(d.aboveCostUsd)})`
        : p.reason === 'tool'
          ? `before a step that calls ${Array.isArray(d.tools) ? d.tools.join(', ') : 'a tool'}`
          : `(${p.reason})`;
  return `${who} waits for approval ${why}: reply "approve" or "reject"`;
}

/** Why an answer was refused, as the reply carries it; `id` the item it answered. */
export interface Refusal {
  detail: string;
  errors: FieldError[];
  id?: string;
}

/** The status message of an input-required task: the question (or the approval), after a refusal when the last answer was refused. */
export function promptOf(taskId: string, contextId: string, p: PendingInput, refusal?: Refusal): Message {
  const asked = p.kind === 'question' ? String(p.detail.question ?? '') : approvalText(p);
  const refused = refusal ? [`answer refused: ${refusal.detail}`, ...refusal.errors.map((e) => `${e.path}: ${e.message}`), ''] : [];
  const schema = p.detail.answerSchema;
  return agentMessage(taskId, contextId, `${taskId}:input:${p.id}${refusal ? ':refused' : ''}`, [
    textPart([...refused, asked].join('\n')),
    dataPart({
      id: p.id,
      kind: p.kind,
      reason: p.reason,
      ...(p.taskId ? { taskId: p.taskId } : {}),
      ...(p.kind === 'question' ? { question: p.detail.question } : { detail: p.detail }),
      ...(schema !== undefined ? { answerSchema: schema } : {}),
      expiresAt: p.expiresAt,
      ...(refusal ? { refused: { detail: refusal.detail, errors: refusal.errors } } : {}),
    }),
  ]);
}

/** The item a message answers: the one its metadata names, else the oldest pending; a Rejection when it names another. */
export function targetOf(message: Message, pending: PendingInput[]): PendingInput | undefined {
  const named: unknown = message.metadata?.[APPROVAL_ID_KEY];
  if (named === undefined || named === '') return pending[0];
  const hit = pending.find((p) => p.id === named);
  if (!hit)
    throw new Rejection(`the task does not wait on "${String(named)}"`, [
      { path: `message.metadata.${APPROVAL_ID_KEY}`, message: `pending: ${pending.map((p) => p.id).join(', ')}` },
    ]);
  return hit;
}

/** Where a field of the inbox's body (`body.answer.year`) is in the message (`message.parts[0].data.year`). */
export type AnswerAt = { part: number; kind: 'data' | 'text' };

/** The inbox's decision a message carries for `p`, and where its answer is; a Rejection naming the field when it carries none. */
export function answerOf(message: Message, p: PendingInput): { decision: Decision; at: AnswerAt } {
  const dataAt = message.parts.findIndex((x) => x.content?.$case === 'data');
  const textAt = message.parts.findIndex((x) => x.content?.$case === 'text');
  const text = message.parts
    .map((x) => (x.content?.$case === 'text' ? x.content.value : ''))
    .join('\n')
    .trim();
  if (p.kind === 'question') {
    if (dataAt >= 0) return { decision: { answer: message.parts[dataAt]!.content!.value }, at: { part: dataAt, kind: 'data' } };
    if (text) return { decision: { answer: text }, at: { part: textAt, kind: 'text' } };
    throw new Rejection('the message carries no answer', [
      { path: 'message.parts', message: 'send the answer as a data part (JSON) or a text part' },
    ]);
  }
  if (dataAt >= 0) {
    const root = `message.parts[${dataAt}].data`;
    const parsed = DecisionSchema.safeParse(message.parts[dataAt]!.content!.value);
    const why = 'the approval takes { decision: "approve" | "reject", note? }';
    if (!parsed.success)
      throw new Rejection(
        why,
        parsed.error.issues.map((i) => ({ path: formatPath(i.path as PropertyKey[], root), message: i.message })),
      );
    if (!parsed.data.decision || parsed.data.answer !== undefined)
      throw new Rejection(why, [{ path: `${root}.decision`, message: 'approve or reject' }]);
    return {
      decision: { decision: parsed.data.decision, ...(parsed.data.note ? { note: parsed.data.note } : {}) },
      at: { part: dataAt, kind: 'data' },
    };
  }
  const word = text.toLowerCase();
  if (word === 'approve' || word === 'reject') return { decision: { decision: word }, at: { part: textAt, kind: 'text' } };
  throw new Rejection('the approval takes "approve" or "reject"', [
    {
      path: textAt >= 0 ? `message.parts[${textAt}].text` : 'message.parts',
      message: 'send "approve" or "reject" (or a data part { decision })',
    },
  ]);
}

/** The inbox's field errors (`body.answer…`, `body.decision`) at their place in the message. */
export function inMessage(errors: FieldError[], at: AnswerAt): FieldError[] {
  const root = `message.parts[${at.part}].${at.kind}`;
  return errors.map((e) => {
    const m = /^body\.(answer|decision)(.*)$/.exec(e.path);
    if (!m) return e;
    const rest = m[1] === 'decision' ? '.decision' : m[2]!;
    return { path: `${root}${at.kind === 'data' ? rest : ''}`, message: e.message };
  });
}
