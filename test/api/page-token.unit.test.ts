import { describe, expect, it } from 'vitest';
import { compareJobKeys, decodeJobPageToken, encodeJobPageToken, isAfter } from '../../api/jobs/page-token';

describe('job page tokens', () => {
  it('round-trip a key, job ids with dots and colons included', () => {
    for (const key of [
      { startedAt: 0, jobId: 'a' },
      { startedAt: 1_772_446_500_123, jobId: 'nightly.etl:7-x_y' },
    ]) {
      const token = encodeJobPageToken(key);
      expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeJobPageToken(token)).toEqual(key);
    }
  });

  it('refuse what this API did not give: garbage, a report cursor, a bad job id, a huge number', () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64url');
    for (const t of [
      '',
      'not a token',
      '!!!',
      b64('1772446500000.42'),
      b64('j1.12.a/b'),
      b64('j1.12.'),
      b64('j1.1234567890123456.a'),
      b64('j2.12.a'),
      'x'.repeat(401),
    ]) {
      expect(decodeJobPageToken(t), t).toBeUndefined();
    }
  });

  it('order newest start first, then the larger job id, byte by byte', () => {
    const keys = [
      { startedAt: 1, jobId: 'b' },
      { startedAt: 2, jobId: 'a' },
      { startedAt: 1, jobId: 'B' },
      { startedAt: 1, jobId: 'a_1' },
      { startedAt: 1, jobId: 'a-1' },
    ];
    expect([...keys].sort(compareJobKeys).map((k) => `${k.startedAt}${k.jobId}`)).toEqual(['2a', '1b', '1a_1', '1a-1', '1B']);
    expect(isAfter({ startedAt: 1, jobId: 'a' }, { startedAt: 1, jobId: 'b' })).toBe(true);
    expect(isAfter({ startedAt: 1, jobId: 'b' }, { startedAt: 1, jobId: 'b' })).toBe(false);
    expect(isAfter({ startedAt: 2, jobId: 'a' }, { startedAt: 1, jobId: 'b' })).toBe(false);
    expect(isAfter({ startedAt: 2, jobId: 'a' }, undefined)).toBe(true);
  });
});
