/**
 * The code scout, as PROTOCOLS.md §2 writes it: what a parent sends (camelCase, like the rest of
 * the API), what the scout agent answers (its step data, validated by the host against
 * SCOUT_ANSWER_JSON_SCHEMA with one re-prompt), and the committed report (snake_case).
 *
 *   parent ──ScoutRequest──> prep (scope, caps, id, prompt) ──task──> scout agent
 *   scout agent ──ScoutAnswer──> host checks (schema, findings vs files, token size) ──ScoutReport──> record
 */
import { z } from 'zod';
import { IdSchema } from './job';

/** The report-size target, in tokens of the report's JSON. */
export const SCOUT_REPORT_MAX_TOKENS = 500;
/** Most findings a report carries. */
export const SCOUT_MAX_FINDINGS = 8;
/** The only tools a scout has: reading and searching files, never writing or running anything. */
export const SCOUT_TOOLS = ['read_file', 'grep'] as const;
/** One of the scout's tools. */
export type ScoutTool = (typeof SCOUT_TOOLS)[number];

const EXCERPT_RULE = 'parentSessionExcerpt is required: 50–1000 characters saying why the scout was sent';

/** The active feature's slug: lower-case letters, digits and "-". */
export const FeatureSlugSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'lower-case letters, digits and "-", at most 64, starting with a letter or digit');

/** What `POST /v1/scouts` and `POST /v1/scouts/prep` take. */
export const ScoutRequestSchema = z
  .strictObject({
    question: z.string().trim().min(1).max(2000).describe('what the parent wants to know, e.g. "where is the circuit breaker opened"'),
    scopePaths: z
      .array(z.string().min(1).max(1024))
      .min(1)
      .max(50)
      .describe('files and directories to inspect, relative to the scout root (or absolute inside it)'),
    parentAgent: z.string().min(1).max(128).describe('who dispatched the scout'),
    parentSessionId: IdSchema.describe('the parent session, for its caps'),
    featureSlug: FeatureSlugSchema.nullable().optional().describe('the active feature; its scouts are archived with it'),
    parentSessionExcerpt: z
      .string({ error: EXCERPT_RULE })
      .trim()
      .min(50, EXCERPT_RULE)
      .max(1000, EXCERPT_RULE)
      .describe('why the scout was sent, so that a later reader can recover the intent: 50–1000 characters'),
  })
  .meta({ id: 'ScoutRequest' });
export type ScoutRequest = z.infer<typeof ScoutRequestSchema>;

/** How much a finding matters to the question. */
export const ScoutRelevanceSchema = z.enum(['high', 'medium', 'low']);
export type ScoutRelevance = z.infer<typeof ScoutRelevanceSchema>;

/** One place in the code: the host keeps it only when `evidence` is really on `line` of `file`. */
export const ScoutFindingSchema = z
  .strictObject({
    file: z.string().min(1).max(1024).describe('path relative to the scout root'),
    line: z.number().int().min(1),
    evidence: z.string().min(1).max(200).describe('the text of that line (a part of it; "…" at either end marks a cut)'),
    relevance: ScoutRelevanceSchema,
    explanation: z.string().min(20).max(300).describe('why this line answers the question, 20–300 characters'),
  })
  .meta({ id: 'ScoutFinding' });
export type ScoutFinding = z.infer<typeof ScoutFindingSchema>;

/** How sure the scout is. */
export const ScoutConfidenceSchema = z.enum(['high', 'medium', 'low']);
/** How the survey ended. */
export const ScoutStatusSchema = z.enum(['success', 'partial', 'no_findings', 'error']);
export type ScoutStatus = z.infer<typeof ScoutStatusSchema>;

const answerShape = {
  findings: z.array(ScoutFindingSchema).max(SCOUT_MAX_FINDINGS),
  confidence: ScoutConfidenceSchema,
  recommendation: z.string().min(30).max(1000).describe('what the parent should do next, 30–1000 characters'),
  files_inspected: z.array(z.string().min(1).max(1024)).max(1000).describe('the files actually read'),
  status: ScoutStatusSchema,
};

/** What the scout agent returns as its step data: the report's own part, before the host adds the rest. */
export const ScoutAnswerSchema = z.strictObject(answerShape).meta({ id: 'ScoutAnswer' });
export type ScoutAnswer = z.infer<typeof ScoutAnswerSchema>;

/**
 * ScoutAnswer as a draft-07 JSON Schema: the scout task's `outputSchema`, so the host's
 * validation and its one re-prompt apply as to any task.
 */
export const SCOUT_ANSWER_JSON_SCHEMA: Record<string, unknown> = (() => {
  const { definitions = {}, ...root } = z.toJSONSchema(ScoutAnswerSchema, { target: 'draft-7' }) as Record<string, unknown> & {
    definitions?: Record<string, unknown>;
  };
  // inlined: a model reads it in its prompt, and "#/definitions/…" hops help no reader
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline);
    if (node === null || typeof node !== 'object') return node;
    const { $ref, ...rest } = node as Record<string, unknown>;
    const target = typeof $ref === 'string' ? definitions[$ref.replace('#/definitions/', '')] : undefined;
    return Object.fromEntries(Object.entries({ ...(target as object), ...rest }).map(([k, v]) => [k, inline(v)]));
  };
  const { $schema: _schema, ...schema } = inline(root) as Record<string, unknown>;
  return schema;
})();

/** A scout id: `scout-{slug}-{YYYYMMDD}-{rand6}`. */
export const ScoutIdSchema = z.string().regex(/^scout-[a-z0-9]+(?:-[a-z0-9]+)*-\d{8}-[a-z0-9]{6}$/, 'scout-{slug}-{YYYYMMDD}-{rand6}');

/** The committed report (PROTOCOLS.md §2), plus what the host counted. */
export const ScoutReportSchema = z
  .strictObject({
    id: ScoutIdSchema,
    parent_agent: z.string().min(1).max(128),
    parent_session_id: IdSchema,
    parent_session_excerpt: z.string().min(50).max(1000),
    feature_slug: FeatureSlugSchema.nullable(),
    question: z.string().min(1).max(2000),
    scope: z.strictObject({ paths: z.array(z.string().min(1).max(1024)).min(1).max(50) }),
    ...answerShape,
    completed_at: z.iso.datetime({ offset: true }),
    dropped_findings: z.number().int().nonnegative().describe('findings the host dropped: their file, line or evidence did not match'),
    tokens: z.number().int().nonnegative().describe("the report's own size in tokens (its JSON)"),
  })
  .meta({ id: 'ScoutReport' });
export type ScoutReport = z.infer<typeof ScoutReportSchema>;

const STOP_WORDS = new Set(
  'a an and are as at be by can do does for from how i in into is it its of on or so that the their this to was what when where which who whom why will with'.split(
    ' ',
  ),
);

/** The id's slug: the feature slug, else the question's words (stop words left out), lower-case, at most 40 characters. */
export function scoutSlug(input: { featureSlug?: string | null; question: string }): string {
  const words = (s: string) =>
    s
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean);
  let parts = input.featureSlug ? words(input.featureSlug) : words(input.question).filter((w) => !STOP_WORDS.has(w));
  if (parts.length === 0) parts = words(input.question);
  let slug = '';
  for (const w of parts) {
    const next = slug ? `${slug}-${w}` : w;
    if (next.length > 40) break;
    slug = next;
  }
  // a single word longer than the cap is cut rather than lost
  if (!slug && parts.length > 0) slug = parts[0].slice(0, 40);
  return slug || 'scout';
}

/** `scout-{slug}-{YYYYMMDD}-{rand6}`, the date in UTC. */
export function scoutId(input: { featureSlug?: string | null; question: string }, now: Date, rand6: string): string {
  const date = now.toISOString().slice(0, 10).replaceAll('-', '');
  return `scout-${scoutSlug(input)}-${date}-${rand6}`;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Six random lower-case letters and digits (Web Crypto, no modulo bias). */
export function randomSuffix(): string {
  let out = '';
  const buf = new Uint8Array(16);
  while (out.length < 6) {
    globalThis.crypto.getRandomValues(buf);
    // 252 = 7 × 36: bytes above it would favour the first letters
    for (const b of buf) if (b < 252 && out.length < 6) out += ALPHABET[b % 36];
  }
  return out;
}

const QUESTION_OPEN = '<question>';
const QUESTION_CLOSE = '</question>';

/**
 * The standard scout prompt: the task's question when an LLM scout runs. The offline scout
 * reads the question back out of it (`scoutQuestion`), so either form may be sent.
 */
export function scoutPrompt(
  request: Pick<ScoutRequest, 'question' | 'scopePaths' | 'parentSessionExcerpt'>,
  maxTokens = SCOUT_REPORT_MAX_TOKENS,
): string {
  return [
    'You are a read-only code scout. Survey the code below and answer the question for a parent agent that will not read these files itself.',
    `${QUESTION_OPEN}\n${request.question}\n${QUESTION_CLOSE}`,
    `Scope (inspect nothing else): ${request.scopePaths.join(', ')}`,
    `Why the parent asks: ${request.parentSessionExcerpt}`,
    'Rules:',
    `- Your only tools are ${SCOUT_TOOLS.join(' and ')}. Nothing may be written, run or fetched; any other tool is refused.`,
    `- At most ${SCOUT_MAX_FINDINGS} findings. Each cites file (relative path) and line, and its evidence is the exact text of that line (≤ 200 characters; cut with "…" at an end if longer). A finding whose evidence is not on that line is dropped.`,
    '- explanation: 20–300 characters on why the line answers the question. recommendation: 30–1000 characters on what the parent should do next.',
    `- Keep the whole report near ${maxTokens} tokens: fewer, better findings.`,
    '- files_inspected lists the files you actually read. status: success, partial (ran out before finishing), no_findings (nothing in scope answers it) or error.',
    'Answer with JSON only: {"findings":[{"file","line","evidence","relevance":"high|medium|low","explanation"}],"confidence":"high|medium|low","recommendation","files_inspected":[],"status"}',
  ].join('\n');
}

/** The question inside a scout prompt, or the text itself when it is not one. */
export function scoutQuestion(text: string): string {
  const start = text.indexOf(QUESTION_OPEN);
  const end = text.indexOf(QUESTION_CLOSE, start + 1);
  return start >= 0 && end > start ? text.slice(start + QUESTION_OPEN.length, end).trim() : text.trim();
}
