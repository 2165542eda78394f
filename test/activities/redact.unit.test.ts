import { describe, expect, it } from 'vitest';
import { redact, redactUrl } from '../../activities/redact';

describe('redact', () => {
  it('cuts URLs to their origin: no credentials, path or query', () => {
    expect(redactUrl('https://user:pw@hooks.example.com:8443/T0/B1/XYZ?token=s3cret#f')).toBe('https://hooks.example.com:8443/…');
    expect(redactUrl('https://hooks.example.com/')).toBe('https://hooks.example.com');
    expect(redactUrl('::nope')).toBe('[url]');
  });

  it('masks URLs, bearer tokens, API keys and secret=value pairs inside free text', () => {
    const text =
      'fetch http://a:b@10.0.0.1:9/x?token=s3cret-1 failed; Authorization: Bearer s3cret-2abcdef; api_key=s3cret-3 "password": "s3cret-4" key sk-s3cret5abcdefgh';
    const out = redact(text);
    expect(out).not.toMatch(/s3cret/);
    expect(out).toContain('http://10.0.0.1:9/…');
    expect(redact('agent wordcount answered 503 after 2 tokens: 5')).toBe('agent wordcount answered 503 after 2 tokens: 5');
  });
});
