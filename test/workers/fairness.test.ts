import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finalResult, pollUntil, testApp, uniqueId } from '../helpers';
import { TEST_TENANTS } from '../tenants';

let hog: FastifyInstance;
let victim: FastifyInstance;
beforeAll(async () => {
  [hog, victim] = await Promise.all([testApp({}, 'hog'), testApp({}, 'victim')]);
});
afterAll(async () => {
  await Promise.all([hog, victim].map((a) => a?.close()));
});

describe('agent slots are shared fairly between tenants', () => {
  it("a tenant whose long steps fill every slot of its lane does not delay another tenant's job", async () => {
    const slots = TEST_TENANTS.hog.quotas.agentSlots;
    const hogJob = uniqueId('hog');
    // three times as many steps as the hog's lane has slots, each holding its slot until the cancel at the end
    const tasks = Array.from({ length: slots * 3 }, (_, i) => ({
      id: `h${i}`,
      question: 'take a slot',
      agent: 'sim',
      params: { hang: true },
      timeoutSeconds: 600,
    }));
    expect((await hog.inject({ method: 'POST', url: '/v1/jobs', payload: { jobId: hogJob, pattern: 'fanout', tasks } })).statusCode).toBe(
      201,
    );
    const hogEcho = uniqueId('hog-echo');
    try {
      await pollUntil(
        async () => (await hog.inject({ method: 'GET', url: `/v1/jobs/${hogJob}` })).json().progress?.running === tasks.length,
        'the hog job never started all its subtasks',
        60_000,
      );
      // the hog's own echo waits behind its own steps: the lane really is full...
      expect(
        (
          await hog.inject({
            method: 'POST',
            url: '/v1/jobs',
            payload: { jobId: hogEcho, pattern: 'fanout', tasks: [{ id: 'e', question: 'me too', agent: 'echo' }] },
          })
        ).statusCode,
      ).toBe(201);
      // ...while the victim's echo job is served from its own lane
      const victimJob = uniqueId('victim');
      const started = Date.now();
      expect(
        (
          await victim.inject({
            method: 'POST',
            url: '/v1/jobs',
            payload: { jobId: victimJob, pattern: 'fanout', tasks: [{ id: 'e', question: 'hello', agent: 'echo' }] },
          })
        ).statusCode,
      ).toBe(201);
      const res = await victim.inject({ method: 'GET', url: `/v1/jobs/${victimJob}/result?waitSeconds=60` });
      const victimMs = Date.now() - started;
      expect(res.statusCode).toBe(200);
      expect(res.json().status).toBe('success');
      // and the hog's echo, submitted before it, still waits: the victim went past the hog's full lane, not after it
      const blocked = await hog.inject({ method: 'GET', url: `/v1/jobs/${hogEcho}/result?waitSeconds=2` });
      expect(blocked.statusCode).toBe(202);
      console.log(`victim echo job: ${victimMs} ms while the hog held all ${slots} slots of its lane`);
    } finally {
      for (const id of [hogJob, hogEcho]) await hog.inject({ method: 'POST', url: `/v1/jobs/${id}/cancel`, payload: {} });
      await finalResult(hog, hogJob);
    }
  }, 180_000);
});
