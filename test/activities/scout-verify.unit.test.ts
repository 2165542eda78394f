import { afterAll, describe, expect, it } from 'vitest';
import { countTokens, evidenceMatches, fitReport, verifyFindings } from '../../activities/scout/verify';
import { ScoutReportSchema, type ScoutFinding, type ScoutReport } from '../../schemas/scout';
import { scoutTree } from './scout-tree';

const tree = scoutTree();
afterAll(() => tree.cleanup());

const finding = (f: Partial<ScoutFinding>): ScoutFinding => ({
  file: 'src/lib/backoff.ts',
  line: 8,
  evidence: 'export function computeBackoff(attempt: number, opts: BackoffOptions): number {',
  relevance: 'high',
  explanation: 'Defines computeBackoff, the function asked about.',
  ...f,
});

describe('verifyFindings', () => {
  it('keeps a true finding, also with whitespace changed, a part of the line, or "…" at its ends', async () => {
    const good = [
      finding({}),
      finding({ evidence: 'export   function computeBackoff(attempt: number,' }),
      finding({ evidence: '…computeBackoff(attempt: number, opts…' }),
      finding({ file: './src/client.ts', line: 12, evidence: 'setTimeout(r, computeBackoff(attempt, defaults))...' }),
    ];
    const r = await verifyFindings(tree.root, ['src'], good);
    expect(r.dropped).toEqual([]);
    expect(r.kept.map((f) => `${f.file}:${f.line}`)).toEqual([
      'src/lib/backoff.ts:8',
      'src/lib/backoff.ts:8',
      'src/lib/backoff.ts:8',
      'src/client.ts:12',
    ]);
  });

  it('drops a fabricated line, a wrong line number, a line past the end, a missing file and a file outside the scope', async () => {
    const bad = [
      finding({ evidence: 'export function computeBackoff(attempt: number): number {' }),
      finding({ line: 9 }),
      finding({ line: 400 }),
      finding({ file: 'src/lib/retry.ts' }),
      finding({ file: 'docs/notes.md', line: 3, evidence: 'see computeBackoff' }),
      finding({ file: '../outside/secret.ts', line: 1, evidence: 'export const' }),
      finding({ file: 'src/secret-link.ts', line: 1, evidence: 'export const' }),
      finding({ evidence: '…' }),
    ];
    const r = await verifyFindings(tree.root, ['src'], [finding({}), ...bad]);
    expect(r.kept).toHaveLength(1);
    expect(r.dropped.map((d) => d.why)).toEqual([
      'evidence_mismatch',
      'evidence_mismatch',
      'line_out_of_range',
      'file_not_found',
      'outside_scope',
      'outside_scope',
      'outside_scope',
      'evidence_mismatch',
    ]);
  });

  it('matches evidence against that one line only', () => {
    expect(evidenceMatches('const delay', '  const delay = opts.baseMs * 2 ** attempt;')).toBe(true);
    expect(evidenceMatches('const delay = 1', '  const delay = opts.baseMs * 2 ** attempt;')).toBe(false);
    expect(evidenceMatches('  ', 'anything')).toBe(false);
  });
});

describe('countTokens', () => {
  it('counts with a real tokenizer, per family', () => {
    expect(countTokens('hello world')).toBe(2);
    expect(countTokens('hello world', 'cl100k')).toBe(2);
    // the two vocabularies differ: o200k packs this Unicode text into fewer tokens
    const text = 'Die Größe des Berichts wird gezählt — 报告的大小以令牌计算。';
    expect(countTokens(text, 'o200k')).toBeLessThan(countTokens(text, 'cl100k'));
  });
});

/** A report of eight long findings: well over 500 tokens. */
function bigReport(): ScoutReport {
  const relevance = ['high', 'medium', 'low', 'low', 'medium', 'high', 'low', 'medium'] as const;
  return {
    id: 'scout-backoff-20250307-abc123',
    parent_agent: 'claude-code',
    parent_session_id: 'sess-1',
    parent_session_excerpt: 'The parent is refactoring retries and needs every place that computes a backoff delay.',
    feature_slug: null,
    question: 'where is computeBackoff used and how is the delay capped?',
    scope: { paths: ['src'] },
    findings: relevance.map((r, i) => ({
      file: `src/module-${i}.ts`,
      line: 10 + i,
      evidence: `export function computeBackoffVariant${i}(attempt: number, options: BackoffOptions, jitter: number): number { // ${'x'.repeat(60)}`,
      relevance: r,
      explanation:
        `Variant ${i} computes the delay with an exponential curve and caps it at maxMs; it is called from the retry loop of the client and from the queue's redelivery path.`.slice(
          0,
          300,
        ),
    })),
    confidence: 'medium',
    recommendation:
      'Start with the high-relevance variants, then check that every caller passes a cap; the low ones only log the delay. '.repeat(3),
    files_inspected: Array.from({ length: 8 }, (_, i) => `src/module-${i}.ts`),
    status: 'success',
    completed_at: '2025-03-07T12:00:00.000Z',
    dropped_findings: 0,
    tokens: 0,
  };
}

describe('fitReport', () => {
  it('leaves a small report whole and sets its token count', () => {
    const small = { ...bigReport(), findings: bigReport().findings.slice(0, 1), recommendation: 'Open src/module-0.ts at line 10 first.' };
    const { report, cut, fits } = fitReport(small, 500);
    expect(cut).toEqual([]);
    expect(fits).toBe(true);
    expect(report.findings).toHaveLength(1);
    expect(report.tokens).toBe(countTokens(JSON.stringify(report)));
  });

  it('drops the low findings first, then medium, then shortens, until the JSON fits under 500 tokens', () => {
    const before = bigReport();
    expect(countTokens(JSON.stringify(before))).toBeGreaterThan(900);
    const { report, cut, fits } = fitReport(before, 500);
    expect(fits).toBe(true);
    expect(report.tokens).toBeLessThanOrEqual(500);
    expect(report.tokens).toBe(countTokens(JSON.stringify(report)));
    expect(cut.slice(0, 3)).toEqual([
      'dropped finding src/module-6.ts:16 (low)',
      'dropped finding src/module-3.ts:13 (low)',
      'dropped finding src/module-2.ts:12 (low)',
    ]);
    // what is left is the most relevant, still valid against the report schema
    expect(report.findings.every((f) => f.relevance === 'high' || f.relevance === 'medium')).toBe(true);
    expect(report.findings.some((f) => f.relevance === 'high')).toBe(true);
    expect(ScoutReportSchema.safeParse(report).success).toBe(true);
  });

  it("says when it cannot fit: the parent's own question and excerpt are never cut", () => {
    const r = { ...bigReport(), question: 'why '.repeat(500).trim(), parent_session_excerpt: 'because '.repeat(120).trim() };
    const { report, fits } = fitReport(r, 500);
    expect(fits).toBe(false);
    expect(report.question).toBe(r.question);
    expect(report.findings).toHaveLength(1);
    expect(ScoutReportSchema.safeParse(report).success).toBe(true);
  });
});
