/**
 * The host's checks on a scout's findings and on its report's size. The agent is not trusted:
 * a finding is kept only when its evidence really is on its line of its file (read through the
 * sandbox, so the scope holds here too), and the report is cut until its JSON fits the budget.
 *
 *   findings ──file in scope? line exists? evidence on that line?──> kept | dropped (why)
 *   report ──tokens > max?──> drop low, then medium findings ──> shorten texts ──> tokens set
 */
import { createRequire } from 'node:module';
import type { ScoutFinding, ScoutRelevance, ScoutReport } from '../../schemas/scout';
import { createSandbox, ScoutToolError } from './sandbox';
import type { TokenizerFamily } from '../../contracts/job';

/** Why the host dropped a finding. */
export type DropReason = 'outside_scope' | 'file_not_found' | 'not_a_text_file' | 'line_out_of_range' | 'evidence_mismatch';

/** The findings that hold, and those that do not with why. */
export interface VerifiedFindings {
  /** Kept findings, their `file` rewritten relative to the root (posix). */
  kept: ScoutFinding[];
  dropped: { finding: ScoutFinding; why: DropReason }[];
}

/** Whitespace collapsed, ends trimmed, a cut mark ("…" or "...") at either end removed. */
export function normaliseEvidence(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^(?:…|\.\.\.)\s*/, '')
    .replace(/\s*(?:…|\.\.\.)$/, '')
    .trim();
}

/** True when `evidence` is (a part of) `line`, whitespace aside. */
export function evidenceMatches(evidence: string, line: string): boolean {
  const want = normaliseEvidence(evidence);
  return want.length > 0 && line.replace(/\s+/g, ' ').includes(want);
}

/** Why the sandbox refused to read a cited file, as a drop reason. */
function dropReason(err: unknown): DropReason {
  const code = err instanceof ScoutToolError ? err.code : 'not_found';
  return code === 'outside_scope' || code === 'bad_arguments'
    ? 'outside_scope'
    : code === 'not_found'
      ? 'file_not_found'
      : 'not_a_text_file';
}

/**
 * Checks each finding against the line it cites, reading only inside the scope: the sandbox
 * reads just that line (at most 8 findings), so a line past a read window's byte cap is still found.
 */
export async function verifyFindings(root: string | undefined, scopePaths: string[], findings: ScoutFinding[]): Promise<VerifiedFindings> {
  const sandbox = createSandbox(root, scopePaths);
  const out: VerifiedFindings = { kept: [], dropped: [] };
  for (const finding of findings) {
    const read =
      finding.line < 1
        ? undefined
        : await sandbox.readFile(finding.file, { offset: finding.line, limit: 1 }).catch((err: unknown) => dropReason(err));
    if (typeof read === 'string') out.dropped.push({ finding, why: read });
    else if (read === undefined || read.lines.length === 0) out.dropped.push({ finding, why: 'line_out_of_range' });
    else if (!evidenceMatches(finding.evidence, read.lines[0]!)) out.dropped.push({ finding, why: 'evidence_mismatch' });
    else out.kept.push({ ...finding, file: read.file });
  }
  return out;
}

type Encoding = typeof import('gpt-tokenizer/encoding/o200k_base');

// loaded on first use: each encoding's tables take ~0.5 s to load, which no caller should pay for nothing
const require = createRequire(import.meta.url);
const encodings = new Map<TokenizerFamily, Encoding>();
const MODULES: Record<TokenizerFamily, string> = {
  o200k: 'gpt-tokenizer/encoding/o200k_base',
  cl100k: 'gpt-tokenizer/encoding/cl100k_base',
};

/** The number of tokens of `text` in a real tokenizer of the given family (gpt-tokenizer). */
export function countTokens(text: string, family: TokenizerFamily = 'o200k'): number {
  let enc = encodings.get(family);
  if (!enc) encodings.set(family, (enc = require(MODULES[family]) as Encoding));
  return enc.countTokens(text);
}

/** A report fitted to a token budget: what was cut, and whether it now fits. */
export interface FittedReport {
  /** The report, `tokens` set to the size of its JSON (the `tokens` field included). */
  report: ScoutReport;
  /** What was cut, in order, e.g. `dropped finding src/a.ts:12 (low)`. */
  cut: string[];
  /** False when it is still over: the question and the excerpt, the parent's own words, are never cut. */
  fits: boolean;
}

/** The size of a report's JSON with its `tokens` field set to that size (a fixed point: the number's own digits count). */
function measure(report: ScoutReport, family: TokenizerFamily): ScoutReport {
  let r = { ...report, tokens: 0 };
  for (let i = 0; i < 4; i++) {
    const n = countTokens(JSON.stringify(r), family);
    if (n === r.tokens) break;
    r = { ...r, tokens: n };
  }
  return r;
}

// exactly `max` characters when cut: the schema's minimum lengths (20, 30) stay met
const cutText = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);

/**
 * Cuts a report until its JSON is at most `maxTokens`: low findings go first, then medium ones
 * (one at a time, the last listed first), then explanations, evidence (cut with "…", which
 * verification allows) and the recommendation are shortened, then high findings past the first.
 */
export function fitReport(report: ScoutReport, maxTokens = 500, family: TokenizerFamily = 'o200k'): FittedReport {
  const cut: string[] = [];
  let r = measure(report, family);
  const over = () => r.tokens > maxTokens;
  const dropWorst = (rel: ScoutRelevance, keep: number) => {
    while (over() && r.findings.length > keep) {
      let worst = -1;
      r.findings.forEach((f, i) => {
        if (f.relevance === rel) worst = i;
      });
      if (worst < 0) return;
      const f = r.findings[worst];
      cut.push(`dropped finding ${f.file}:${f.line} (${f.relevance})`);
      r = measure({ ...r, findings: r.findings.filter((_, i) => i !== worst) }, family);
    }
  };
  dropWorst('low', 0);
  dropWorst('medium', 0);
  const shorten = (what: string, edit: (x: ScoutReport) => ScoutReport) => {
    if (!over()) return;
    const next = measure(edit(r), family);
    if (JSON.stringify(next) !== JSON.stringify(r)) cut.push(what);
    r = next;
  };
  for (const max of [120, 60, 20])
    shorten(`explanations cut to ${max} characters`, (x) => ({
      ...x,
      findings: x.findings.map((f) => ({ ...f, explanation: cutText(f.explanation, max) })),
    }));
  for (const max of [100, 50])
    shorten(`evidence cut to ${max} characters`, (x) => ({
      ...x,
      findings: x.findings.map((f) => ({ ...f, evidence: cutText(f.evidence, max) })),
    }));
  for (const max of [300, 100, 30])
    shorten(`recommendation cut to ${max} characters`, (x) => ({ ...x, recommendation: cutText(x.recommendation, max) }));
  dropWorst('high', 1);
  return { report: r, cut, fits: !over() };
}
