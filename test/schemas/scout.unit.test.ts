import { describe, expect, it } from 'vitest';
import { randomSuffix, scoutId, scoutPrompt, scoutQuestion, ScoutReportSchema, ScoutRequestSchema, SCOUT_TOOLS } from '../../schemas/scout';

const excerpt = 'The parent is refactoring retries and needs every place that computes a backoff delay.';
const request = {
  question: '  where is `computeBackoff` defined?  ',
  scopePaths: ['src'],
  parentAgent: 'claude-code',
  parentSessionId: 'sess-1',
  parentSessionExcerpt: excerpt,
};

describe('the scout request', () => {
  it('accepts a full request, trims the question, and leaves the feature out when absent', () => {
    const r = ScoutRequestSchema.parse({ ...request, featureSlug: 'retry-rework' });
    expect(r.question).toBe('where is `computeBackoff` defined?');
    expect(r.featureSlug).toBe('retry-rework');
    expect(ScoutRequestSchema.parse(request).featureSlug).toBeUndefined();
    expect(ScoutRequestSchema.parse({ ...request, featureSlug: null }).featureSlug).toBeNull();
  });

  it('requires the excerpt, 50–1000 characters, and says so whether it is missing, short or long', () => {
    const { parentSessionExcerpt: _e, ...without } = request;
    for (const bad of [
      without,
      { ...request, parentSessionExcerpt: 'too short' },
      { ...request, parentSessionExcerpt: 'x'.repeat(1001) },
    ]) {
      const r = ScoutRequestSchema.safeParse(bad);
      expect(r.success).toBe(false);
      expect(r.error!.issues[0]).toMatchObject({ path: ['parentSessionExcerpt'], message: expect.stringContaining('50–1000 characters') });
    }
  });

  it('refuses unknown keys, an empty or oversized scope, and a bad feature slug, each at its path', () => {
    const paths = (v: unknown) => ScoutRequestSchema.safeParse(v).error?.issues.map((i) => i.path.join('.') || i.code);
    expect(paths({ ...request, scope: ['x'] })).toEqual(['unrecognized_keys']);
    expect(paths({ ...request, scopePaths: [] })).toEqual(['scopePaths']);
    expect(paths({ ...request, scopePaths: Array.from({ length: 51 }, (_, i) => `p${i}`) })).toEqual(['scopePaths']);
    expect(paths({ ...request, featureSlug: 'Retry Rework' })).toEqual(['featureSlug']);
    expect(paths({ ...request, parentSessionId: 'has space' })).toEqual(['parentSessionId']);
  });
});

describe('scout ids', () => {
  const day = new Date('2025-03-07T23:59:00Z');
  it('are scout-{slug}-{YYYYMMDD}-{rand6}, the slug from the feature or else the question', () => {
    expect(scoutId({ question: 'Where is the circuit breaker opened?' }, day, 'abc123')).toBe(
      'scout-circuit-breaker-opened-20250307-abc123',
    );
    expect(scoutId({ featureSlug: 'retry-rework', question: 'anything' }, day, 'abc123')).toBe('scout-retry-rework-20250307-abc123');
    expect(scoutId({ question: '???' }, day, 'abc123')).toBe('scout-scout-20250307-abc123');
  });

  it('keep the slug at 40 characters or fewer, and match the report schema', () => {
    const id = scoutId(
      { question: 'how does the extraordinarily complicated reconciliation subsystem propagate cancellation' },
      day,
      randomSuffix(),
    );
    const slug = id.slice('scout-'.length, id.length - '-20250307-abc123'.length);
    expect(slug.length).toBeLessThanOrEqual(40);
    expect(slug.length).toBeGreaterThan(10);
    expect(ScoutReportSchema.shape.id.safeParse(id).success).toBe(true);
  });

  it('draw six lower-case letters and digits', () => {
    const seen = new Set(Array.from({ length: 200 }, () => randomSuffix()));
    for (const s of seen) expect(s).toMatch(/^[a-z0-9]{6}$/);
    expect(seen.size).toBeGreaterThan(190);
  });
});

describe('the standard prompt', () => {
  it('names the two tools, the limits and the question, which the offline scout reads back', () => {
    const prompt = scoutPrompt(ScoutRequestSchema.parse(request));
    expect(SCOUT_TOOLS).toEqual(['read_file', 'grep']);
    expect(prompt).toContain('read_file and grep');
    expect(prompt).toMatch(/At most 8 findings/);
    expect(prompt).toMatch(/500 tokens/);
    expect(prompt).toContain(excerpt);
    expect(scoutQuestion(prompt)).toBe('where is `computeBackoff` defined?');
    expect(scoutQuestion('  a bare question ')).toBe('a bare question');
  });
});
