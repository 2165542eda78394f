import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { loadAgentsFile } from '../../activities';
import { runJob, testApp, uniqueId } from '../helpers';

let app: FastifyInstance;
beforeAll(async () => {
  app = await testApp();
});
afterAll(async () => {
  await app?.close();
});

describe('agents served over HTTP', () => {
  it('runs a job on a real HTTP agent and books what it reports', async () => {
    const r = await runJob({
      jobId: uniqueId('http'),
      pattern: 'fanout',
      tasks: [
        { id: 'byId', question: 'count these four words', agent: 'wordcount' },
        { id: 'byCap', question: 'two words', agent: { capability: 'count' } },
      ],
    });
    expect(r.results[0]).toMatchObject({
      status: 'success',
      agentId: 'wordcount',
      data: { words: 4, characters: 22 },
      metrics: { tokens: 4, steps: 1 },
    });
    expect(r.results[1]).toMatchObject({ status: 'success', data: { words: 2 } });
  });

  it('retries 5xx answers, fails 4xx at once, and treats a bad reply as an agent error', async () => {
    const r = await runJob({
      jobId: uniqueId('httperr'),
      pattern: 'fanout',
      tasks: [
        { id: 'flaky', question: 'one two', agent: 'flaky-http' },
        { id: 'forbidden', question: 'q', agent: 'forbidden-http' },
        { id: 'broken', question: 'q', agent: 'broken-http' },
      ],
    });
    expect(r.results[0]).toMatchObject({ status: 'success', metrics: { attempts: 2 } });
    expect(r.results[1]).toMatchObject({ status: 'failure', failureReason: 'agent_error', metrics: { attempts: 1 } });
    expect(r.results[1].errors[0]).toContain('403');
    expect(r.results[2]).toMatchObject({ status: 'failure', failureReason: 'agent_error', metrics: { attempts: 2 } });
    expect(r.results[2].errors[0]).toContain('invalid step reply');
  });

  it("validates params against the agent's declared input schema at submission", async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: { pattern: 'fanout', tasks: [{ id: 'a', question: 'q', agent: 'wordcount', params: { language: 'fr' } }] },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].path).toBe('body.tasks[0].params');
  });

  it('refuses an agents file with a bad entry, naming the field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agents-'));
    const file = join(dir, 'agents.json');
    writeFileSync(file, JSON.stringify({ agents: [{ id: 'x', url: 'ftp://nope' }] }));
    expect(() => loadAgentsFile(file)).toThrow(/agents\[0\] \("x"\)\.url/);
    writeFileSync(file, '{ not json');
    expect(() => loadAgentsFile(file)).toThrow(/cannot read agents file/);
  });
});
