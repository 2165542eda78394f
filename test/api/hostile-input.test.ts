import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from '../../api/json-body';
import { useApp } from '../helpers';

const app = useApp();

const spec = JSON.stringify({ pattern: 'fanout', objective: '@@', tasks: [{ id: 'a', question: 'q', agent: 'echo' }] });

describe('hostile input (found by the chaos fuzzer)', () => {
  it('refuses invalid UTF-8 instead of repairing it into U+FFFD', async () => {
    const [head, tail] = spec.split('@@');
    const payload = Buffer.concat([Buffer.from(head), Buffer.from([0xc3, 0x28]), Buffer.from(tail)]);
    const res = await app.inject({ method: 'POST', url: '/v1/jobs', headers: { 'content-type': 'application/json' }, payload });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json().detail).toContain('UTF-8');
  });

  it('refuses nesting thousands of levels deep with a 400, not a stack overflow (500)', async () => {
    const levels = 3000;
    const open = '{"pattern":"fanout","tasks":[{"id":"a","question":"q","job":';
    const payload = open.repeat(levels) + '{"pattern":"fanout","tasks":[{"id":"a","question":"q","agent":"echo"}]}' + '}]}'.repeat(levels);
    const res = await app.inject({ method: 'POST', url: '/v1/jobs', headers: { 'content-type': 'application/json' }, payload });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/nests deeper/);
  });

  it('answers bad URL encodings and over-long path params with problem+json', async () => {
    for (const url of ['/v1/jobs/%E0%A4%A', `/v1/jobs/${'x'.repeat(300)}`]) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
  });

  it('lets ids of up to 128 characters reach the route (404 for an unknown job)', async () => {
    const res = await app.inject({ method: 'GET', url: `/v1/jobs/${'j'.repeat(128)}` });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('counts nesting outside strings only', () => {
    expect(nestsDeeperThan('[[[]]]', 3)).toBe(false);
    expect(nestsDeeperThan('[[[[]]]]', 3)).toBe(true);
    expect(nestsDeeperThan('{"a":"[[[[[[\\"[[["}', 1)).toBe(false);
  });
});
