import { describe, expect, it } from 'vitest';
import { startupLine } from '../../config/startup';

describe('a configuration error at start', () => {
  it('is one line: the process, then the message, its lines joined after the heading', () => {
    const roles = new Error('invalid roles in agents file /etc/agents.json:\n  role "review": agent: unknown agent "nobody"');
    expect(startupLine('api', roles)).toBe(
      'api: invalid roles in agents file /etc/agents.json: role "review": agent: unknown agent "nobody"',
    );
    const two = new Error('invalid configuration:\n  PORT: expected number\n  HOST: required');
    expect(startupLine('worker', two)).toBe('worker: invalid configuration: PORT: expected number; HOST: required');
    expect(startupLine('api', 'no keys')).toBe('api: no keys');
  });
});
