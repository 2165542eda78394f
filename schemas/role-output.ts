import { z } from 'zod';

/** Findings a report (or review) carries at most: the protocol's hard limit, the last host constraint. */
export const MAX_FINDINGS = 4;

const Finding = z.strictObject({
  title: z.string().min(1).max(200),
  detail: z.string().min(1).max(1000),
  evidence: z.string().max(500).optional(),
});
const Findings = z.array(Finding).max(MAX_FINDINGS, `at most ${MAX_FINDINGS} findings`);

/** Every completed output kind a role may produce, each with its exact item and text limits. */
export const OUTPUT_KIND_SCHEMAS = {
  report: z.strictObject({ kind: z.literal('report'), summary: z.string().min(1).max(4000), findings: Findings }),
  review: z.strictObject({
    kind: z.literal('review'),
    subject: z.string().min(1).max(500).describe("what was reviewed: must be the task's subject"),
    verdict: z.enum(['approve', 'request_changes', 'comment']),
    summary: z.string().min(1).max(4000),
    findings: Findings,
  }),
  answer: z.strictObject({ kind: z.literal('answer'), text: z.string().min(1).max(8000) }),
  draft: z.strictObject({ kind: z.literal('draft'), title: z.string().min(1).max(200), body: z.string().min(1).max(20_000) }),
} as const;

/** The name of a completed output kind. */
export const OutputKindSchema = z.enum(['report', 'review', 'answer', 'draft']);
export type OutputKind = z.infer<typeof OutputKindSchema>;

/** The bounded decision branch: the child declines, or asks for more information. */
export const RoleDecisionSchema = z.strictObject({
  decision: z.enum(['decline', 'need_more_information']),
  reason: z.string().min(1).max(1000),
});
export type RoleDecision = z.infer<typeof RoleDecisionSchema>;

/** The final output schema of one task: `{ result }`, only the task's allowed kinds plus the decision branch. */
export function roleOutputSchema(kinds: readonly OutputKind[]) {
  const options: z.ZodType[] = [...kinds.map((k) => OUTPUT_KIND_SCHEMAS[k]), RoleDecisionSchema];
  return z.strictObject({ result: options.length === 1 ? RoleDecisionSchema : z.union(options as [z.ZodType, z.ZodType, ...z.ZodType[]]) });
}

/** A checked role output: a completed candidate of an allowed kind, or a decision. */
export type RoleOutput = { result: ({ kind: OutputKind } & Record<string, unknown>) | RoleDecision };

/** What the host checks a role output against: the task's allowed kinds and, for reviews, the subject. */
export interface RoleOutputRules {
  allowedKinds: readonly OutputKind[];
  subject?: string;
}

/** Strips the transport envelope a model may put around its JSON (a code fence, surrounding blanks). */
export function unwrapEnvelope(text: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/.exec(text);
  return (fenced ? fenced[1] : text).trim();
}

/**
 * The host's check of a role's final output, in the protocol's order: unwrap the envelope,
 * check the output kind against the task, parse the candidate, check a review's subject.
 */
export function checkRoleOutput(raw: unknown, rules: RoleOutputRules): { ok: true; output: RoleOutput } | { ok: false; error: string } {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(unwrapEnvelope(raw));
    } catch {
      return { ok: false, error: 'the output is not JSON: answer with {"result": …} only' };
    }
  }
  const result = (value as { result?: unknown } | null)?.result;
  if (typeof result !== 'object' || result === null) return { ok: false, error: 'the output needs an object root {"result": …}' };
  const kind = (result as { kind?: unknown }).kind;
  if (kind !== undefined && !(rules.allowedKinds as unknown[]).includes(kind)) {
    return {
      ok: false,
      error: `output kind ${JSON.stringify(kind)} is not allowed for this task (allowed: ${rules.allowedKinds.join(', ')}, or a decision)`,
    };
  }
  // the branch the candidate claims, parsed alone: its issues name exact fields (a union's would not)
  const branch =
    kind === undefined
      ? z.strictObject({ result: RoleDecisionSchema })
      : z.strictObject({ result: OUTPUT_KIND_SCHEMAS[kind as OutputKind] });
  const parsed = branch.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    return { ok: false, error: `the output does not fit the task's output schema: ${issues.join('; ')}` };
  }
  const output = parsed.data as RoleOutput;
  const r = output.result as Record<string, unknown>;
  if (r.kind === 'review' && rules.subject !== undefined && r.subject !== rules.subject) {
    return {
      ok: false,
      error: `the review's subject ${JSON.stringify(r.subject)} is not the task's subject ${JSON.stringify(rules.subject)}`,
    };
  }
  return { ok: true, output };
}
