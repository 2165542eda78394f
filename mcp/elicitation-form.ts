/**
 * An inbox item as an MCP elicitation form, and the form's answer as the inbox's decision. MCP
 * asks for a flat object of primitive fields, so a question's answerSchema goes as it is when it
 * fits (an object of strings, numbers, booleans and string enums, or one primitive, wrapped in an
 * `answer` field); anything else is asked as one `answerJson` string holding the answer's JSON,
 * and the message says so. The inbox checks the answer against the whole answerSchema either way.
 *
 *   approval ──> { decision: approve | reject, note? }   ──accept──> { decision, note }
 *   question (flat schema) ──> its own fields, + note?   ──accept──> { answer: the fields }
 *   question (primitive)   ──> { answer: <it>, note? }   ──accept──> { answer: content.answer }
 *   question (no schema)   ──> { answer: string, note? }  ──accept──> { answer: the text }
 *   question (other)       ──> { answerJson, note? }   ──accept──> { answer: JSON.parse(answerJson) }
 */
import type { ElicitRequestFormParams } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalDecision, InboxItem } from 'delegate/client';

type Field = ElicitRequestFormParams['requestedSchema']['properties'][string];
type Content = Record<string, string | number | boolean | string[]>;

/** The field a note goes in; a question's own field of that name wins (and the form then has no note). */
const NOTE = 'note';
/** The keywords each primitive kind keeps (MCP allows no others). */
const KEEP: Record<string, readonly string[]> = {
  string: ['title', 'description', 'minLength', 'maxLength', 'format', 'default', 'enum'],
  number: ['title', 'description', 'minimum', 'maximum', 'default'],
  integer: ['title', 'description', 'minimum', 'maximum', 'default'],
  boolean: ['title', 'description', 'default'],
};
const FORMATS = new Set(['email', 'uri', 'date', 'date-time']);

/** One form for one item: what the client shows, and how its accepted content becomes a decision. */
export interface ElicitationForm {
  params: ElicitRequestFormParams;
  /** The decision of an accepted form, or why the content cannot be one (the form is asked again with it). */
  decision(content: Content | undefined): { decision: ApprovalDecision; error?: never } | { error: string; decision?: never };
}

/** A primitive JSON Schema as an MCP field, or null when it does not fit one. */
export function primitiveField(schema: unknown): Field | null {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return null;
  const s = schema as Record<string, unknown>;
  const keep = typeof s.type === 'string' ? KEEP[s.type] : undefined;
  if (!keep) return null;
  const out: Record<string, unknown> = { type: s.type };
  for (const [k, v] of Object.entries(s)) {
    if (k === 'type' || k === '$schema') continue;
    if (!keep.includes(k)) continue; // dropped keywords (pattern, multipleOf, …) are still checked by the inbox
    if (k === 'format' && !FORMATS.has(String(v))) continue;
    if (k === 'enum' && !(Array.isArray(v) && v.every((x) => typeof x === 'string'))) return null;
    if (k === 'default' && typeof v !== (s.type === 'integer' ? 'number' : s.type)) continue;
    out[k] = v;
  }
  return out as Field;
}

/** The flat fields of an object schema whose every property is primitive, or null. */
function flatFields(schema: Record<string, unknown>): Record<string, Field> | null {
  if (schema.type !== 'object' || !schema.properties || typeof schema.properties !== 'object') return null;
  const fields: Record<string, Field> = {};
  for (const [name, sub] of Object.entries(schema.properties as Record<string, unknown>)) {
    const f = primitiveField(sub);
    if (!f) return null;
    fields[name] = f;
  }
  return Object.keys(fields).length ? fields : null;
}

/** The note field, unless the form already has one of that name. */
const withNote = (fields: Record<string, Field>): Record<string, Field> =>
  NOTE in fields
    ? fields
    : { ...fields, [NOTE]: { type: 'string', title: 'Note', description: 'why (kept with the decision)', maxLength: 2000 } };

/** The note of accepted content, when the form asked for one. */
const noteOf = (c: Content, fields: Record<string, Field>, own: boolean) =>
  !own && typeof c[NOTE] === 'string' && c[NOTE] ? { note: c[NOTE] } : {};

/** What the item is about, for the message. */
function about(item: InboxItem): string {
  const d = item.detail;
  const task = `${item.taskId ? `task ${item.taskId} of ` : ''}job ${item.jobId}`;
  if (item.kind === 'question') return `${task} asks: ${String(d.question ?? '(no question text)')}`;
  if (item.reason === 'before_start') return `Approve ${task} to start (agent ${String(d.agentId ?? '?')})?`;
  if (item.reason === 'spend')
    return `Approve a costly step of ${task}: planned $${String(d.plannedCostUsd)} (above $${String(d.aboveCostUsd)})?`;
  if (item.reason === 'tool') return `Approve ${task} to call ${(d.tools as string[] | undefined)?.join(', ') ?? 'a tool'}?`;
  return `Approve ${task} (${item.reason})?`;
}

/** The form of `item`; `refusal` is why the previous answer was refused (said first in the message). */
export function elicitationForm(item: InboxItem, refusal?: string): ElicitationForm {
  const head = refusal ? `Your previous answer was refused: ${refusal}\nTry again.\n\n` : '';
  const until = `\n(Waits until ${item.expiresAt}, then ${item.onTimeout}.)`;
  if (item.kind !== 'question') {
    const fields: Record<string, Field> = withNote({
      decision: { type: 'string', title: 'Decision', enum: ['approve', 'reject'] },
    });
    return {
      params: {
        mode: 'form',
        message: `${head}${about(item)}${until}`,
        requestedSchema: { type: 'object', properties: fields, required: ['decision'] },
      },
      decision: (c) => {
        if (c?.decision !== 'approve' && c?.decision !== 'reject') return { error: 'decision: must be approve or reject' };
        return { decision: { decision: c.decision, ...noteOf(c, fields, false) } };
      },
    };
  }

  const schema = item.detail.answerSchema as Record<string, unknown> | undefined;
  const flat = schema ? flatFields(schema) : null;
  if (flat) {
    const own = NOTE in flat;
    const fields = withNote(flat);
    const required = Array.isArray(schema!.required) ? (schema!.required as string[]).filter((r) => r in flat) : [];
    return {
      params: { mode: 'form', message: `${head}${about(item)}${until}`, requestedSchema: { type: 'object', properties: fields, required } },
      decision: (c = {}) => {
        const answer = Object.fromEntries(Object.entries(c).filter(([k]) => k in flat));
        return { decision: { answer, ...noteOf(c, fields, own) } };
      },
    };
  }
  // no answerSchema: any JSON is an answer, and a text one is what a person gives
  const one = schema ? primitiveField(schema) : ({ type: 'string', title: 'Answer' } as Field);
  if (one) {
    const fields = withNote({ answer: { ...one, title: one.title ?? 'Answer' } as Field });
    return {
      params: {
        mode: 'form',
        message: `${head}${about(item)}${until}`,
        requestedSchema: { type: 'object', properties: fields, required: ['answer'] },
      },
      decision: (c) =>
        c?.answer === undefined ? { error: 'answer: required' } : { decision: { answer: c.answer, ...noteOf(c, fields, false) } },
    };
  }
  const shape = `\nThe answer does not fit a form: give it as JSON in answerJson, matching this JSON Schema:\n${JSON.stringify(schema).slice(0, 4000)}`;
  const fields = withNote({ answerJson: { type: 'string', title: 'Answer (JSON)', minLength: 1 } });
  return {
    params: {
      mode: 'form',
      message: `${head}${about(item)}${shape}${until}`,
      requestedSchema: { type: 'object', properties: fields, required: ['answerJson'] },
    },
    decision: (c) => {
      const raw = c?.answerJson;
      if (typeof raw !== 'string') return { error: 'answerJson: required' };
      try {
        return { decision: { answer: JSON.parse(raw) as unknown, ...noteOf(c!, fields, false) } };
      } catch {
        return { error: 'answerJson: not valid JSON' };
      }
    },
  };
}
