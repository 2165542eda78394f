import { ApplicationFailure } from '@temporalio/activity';
import { afterAll, describe, expect, it } from 'vitest';
import { createScoutAgent } from '../../activities/agents/scout';
import type { StepRequest } from '../../activities/agents/types';
import { compileOutputSchema } from '../../activities/output-schema';
import { verifyFindings } from '../../activities/scout/verify';
import { SCOUT_ANSWER_JSON_SCHEMA, ScoutAnswerSchema, scoutPrompt, type ScoutAnswer } from '../../schemas/scout';
import { rejection, scoutStep, scoutTree } from './scout-tree';

const tree = scoutTree();
afterAll(() => tree.cleanup());
const scout = createScoutAgent({ rootFor: () => tree.root });

/** One step of the offline scout on the fixture tree. */
const ask = (question: string, paths: string[] = ['src', 'docs'], extra: Partial<Omit<StepRequest, 'params'>> = {}) =>
  scout.step(scoutStep(question, paths, extra));

const validate = (() => {
  const c = compileOutputSchema(SCOUT_ANSWER_JSON_SCHEMA);
  if (!c.ok) throw new Error(c.error);
  return c.validate;
})();

describe('the offline scout', () => {
  it("finds computeBackoff's definition, file and line right, first and high", async () => {
    const r = await ask('where is `computeBackoff` defined?');
    const a = r.data as ScoutAnswer;
    expect(r.done).toBe(true);
    expect(a.status).toBe('success');
    expect(a.confidence).toBe('high');
    expect(a.findings[0]).toMatchObject({
      file: 'src/lib/backoff.ts',
      line: 8,
      relevance: 'high',
      evidence: expect.stringContaining('export function computeBackoff('),
    });
    expect(a.findings.length).toBeLessThanOrEqual(8);
    expect(a.files_inspected).toContain('src/lib/backoff.ts');
    expect(r.evidence![0]).toMatchObject({ source: 'code', url: 'file://src/lib/backoff.ts#L8' });
    expect(r.usage!.toolCalls).toBeGreaterThanOrEqual(2);
    // its findings survive the host's check
    expect((await verifyFindings(tree.root, ['src', 'docs'], a.findings)).dropped).toEqual([]);
  });

  it('answers "who calls" with the call site first, naming the enclosing function, also from the standard prompt', async () => {
    const prompt = scoutPrompt({ question: 'who calls computeBackoff?', scopePaths: ['src'], parentSessionExcerpt: 'x'.repeat(60) });
    const a = (await ask(prompt, ['src'])).data as ScoutAnswer;
    expect(a.findings[0]).toMatchObject({ file: 'src/client.ts', line: 12 });
    expect(a.findings[0].explanation).toContain('withRetry');
  });

  it('finds a class from plain words, by their rarest forms', async () => {
    const a = (await ask('where is the job queue implemented')).data as ScoutAnswer;
    expect(a.findings[0]).toMatchObject({ file: 'src/queue.ts', line: 2 });
  });

  it('returns no_findings with a useful recommendation for an absent symbol', async () => {
    const r = await ask('where is `frobnicateWidget` defined?');
    const a = r.data as ScoutAnswer;
    expect(a).toMatchObject({ status: 'no_findings', findings: [], confidence: 'low' });
    expect(a.recommendation).toContain('frobnicateWidget');
    expect(a.recommendation).toMatch(/widen scopePaths/);
    expect(validate(a)).toBeNull();
  });

  it('never reports from outside its scope, nor through a symlink out of the root', async () => {
    const a = (await ask('where is `computeBackoffSecret` defined?', ['src'])).data as ScoutAnswer;
    expect(a.status).toBe('no_findings');
    const docsOnly = (await ask('where is `computeBackoff` defined?', ['docs'])).data as ScoutAnswer;
    expect(docsOnly.findings.map((f) => f.file)).toEqual(['docs/notes.md']);
  });

  it('refuses a scope outside the root as invalid input', async () => {
    const err = await rejection(ask('where is x', ['../outside']));
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: 'InvalidInput', message: expect.stringContaining('path_outside_root') });
  });

  it('is deterministic, stays within the tool-call budget, and answers more compactly when re-prompted', async () => {
    const q = 'where is `computeBackoff` defined?';
    expect((await ask(q)).data).toEqual((await ask(q)).data);
    const capped = await ask('how does the client retry with backoff', ['src', 'docs'], { budgetLeft: { toolCalls: 1 } });
    expect(capped.usage!.toolCalls).toBe(1);
    expect((capped.data as ScoutAnswer).status).toBe('partial');
    const again = await ask(q, ['src', 'docs'], { reprompt: 'data/recommendation must NOT have more than 1000 characters' });
    expect((again.data as ScoutAnswer).findings.length).toBeLessThanOrEqual(3);
  });

  it('declares exactly read_file and grep, so the host denies it without both in the task scope', () => {
    expect(scout.manifest).toMatchObject({
      id: 'scout',
      kind: 'builtin',
      capabilities: ['scout', 'code-search'],
      tools: ['read_file', 'grep'],
    });
    expect(scout.toolsFor!({ paths: ['src'] })).toEqual(['read_file', 'grep']);
    expect(scout.params.safeParse({ paths: [] }).success).toBe(false);
    expect(scout.params.safeParse({ paths: ['src'], extra: 1 }).success).toBe(false);
  });
});

describe('the scout answer against SCOUT_ANSWER_JSON_SCHEMA (the task outputSchema)', () => {
  it("compiles in the host's compiler and passes every answer the scout gives", async () => {
    for (const q of ['where is `computeBackoff` defined?', 'who calls computeBackoff', 'where is the job queue implemented']) {
      const a = (await ask(q)).data;
      expect(validate(a)).toBeNull();
      expect(ScoutAnswerSchema.safeParse(a).success).toBe(true);
    }
  });

  it('refuses a wrong answer with a message that quotes the failing paths', () => {
    const bad = {
      findings: [{ file: 'src/a.ts', line: 0, evidence: 'x'.repeat(201), relevance: 'critical', explanation: 'short' }],
      confidence: 'sure',
      recommendation: 'do it',
      files_inspected: [],
      status: 'done',
      extra: true,
    };
    const message = validate(bad)!;
    for (const path of [
      'data/findings/0/line',
      'data/findings/0/evidence',
      'data/findings/0/relevance',
      'data/findings/0/explanation',
      'data/confidence',
      'data/recommendation',
      'data/status',
    ]) {
      expect(message).toContain(path);
    }
    expect(message).toMatch(/additional properties/);
    expect(
      validate({
        ...(bad as object),
        findings: Array.from({ length: 9 }, () => ({ file: 'a', line: 1, evidence: 'x', relevance: 'low', explanation: 'x'.repeat(20) })),
      }),
    ).toContain('data/findings must NOT have more than 8 items');
  });
});

describe("the offline scout's ranking", () => {
  it('ranks the line that does what the question asks above the types that only name it', async () => {
    const { mkdtempSync, mkdirSync, writeFileSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const root = mkdtempSync(join(tmpdir(), 'scout-rank-'));
    try {
      mkdirSync(join(root, 'src'));
      writeFileSync(
        join(root, 'src', 'circuit-breaker.ts'),
        [
          "export type CircuitState = 'closed' | 'open' | 'half_open';",
          'const RESTRICTION: Record<CircuitState, number> = { closed: 0, half_open: 1, open: 2 };',
          'export interface CircuitBreaker { state: CircuitState; failures: number }',
          '',
        ].join('\n'),
      );
      writeFileSync(
        join(root, 'src', 'breaker-state.ts'),
        [
          "import type { CircuitBreaker } from './circuit-breaker';",
          '',
          'export function failed(b: CircuitBreaker, limit: number): CircuitBreaker {',
          '  const next = { ...b, failures: b.failures + 1 };',
          '  if (next.failures >= limit) return open(next);',
          '  return next;',
          '}',
          '',
          'function open(b: CircuitBreaker): CircuitBreaker {',
          "  return { ...b, state: 'open' };",
          '}',
          '',
        ].join('\n'),
      );
      const ranked = createScoutAgent({ rootFor: () => root });
      const r = await ranked.step(scoutStep('Where does the circuit breaker open?', ['src']));
      const a = r.data as ScoutAnswer;
      const typeLines = a.findings.filter((f) => /^(export )?(type|interface) |: Record</.test(f.evidence));
      // the type, the interface and the lookup table describe the breaker; none answers where it opens
      // (before: the type ranked medium, above the line that opens it)
      expect(typeLines.map((f) => f.relevance)).toEqual(typeLines.map(() => 'low'));
      const opens = a.findings.findIndex((f) => f.evidence.includes('return open(next)'));
      expect(opens).toBeGreaterThanOrEqual(0);
      for (const t of typeLines) expect(opens).toBeLessThan(a.findings.indexOf(t));
      expect(a.findings[0]).toMatchObject({ file: 'src/breaker-state.ts', relevance: 'high' });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
