/**
 * Issue 26, finding 2, started straight through Temporal (no API check): a hostile outputSchema
 * fails only its own task as invalid_output, and another tenant's echo jobs on the same shared
 * worker keep answering within a small bound meanwhile.
 */
import { describe, expect, inject, it } from 'vitest';
import type { JobResult, JobSpec } from '../../schemas';
import { agentQueueFor } from '../../core/names';
import { DATA_EXPONENTIAL, exponentialSchema, nested, SELF_REF } from '../hostile-schemas';
import { fastRetry, startJob, uniqueId } from '../helpers';

/** Starts a job on a tenant's lane, as the API would, but without any of the API's checks. */
const start = (tenant: string, spec: JobSpec & { jobId: string }) => startJob(spec, {}, tenant, agentQueueFor(inject('taskQueue'), tenant));

/** The middle of some latencies. */
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** How long one echo job of the victim tenant takes, end to end. */
async function victimJob(): Promise<number> {
  const began = performance.now();
  const handle = await start('victim', {
    jobId: uniqueId('victim'),
    pattern: 'fanout',
    tasks: [{ id: 'v', question: 'ping', agent: 'echo' }],
  });
  const r = await handle.result();
  expect(r.results[0]).toMatchObject({ status: 'success', data: 'ping' });
  return performance.now() - began;
}

/**
 * Runs the hostile job (its evil task beside a fine one) and victim jobs one after the other
 * until it ends (at least three); the hostile result and the victims' latencies.
 */
async function underAttack(label: string, outputSchema: Record<string, unknown>, answer: unknown) {
  // the worker's schema threads start with its first schema (a one-off second of CPU): not the attack's doing
  const warm = await start('hog', {
    jobId: uniqueId('warm'),
    pattern: 'fanout',
    tasks: [{ id: 'w', question: 'q', agent: 'sim', params: { answer: 'w' }, outputSchema: { type: 'string' } }],
  });
  await warm.result();
  const baseline = [await victimJob(), await victimJob(), await victimJob()];
  const handle = await start('hog', {
    jobId: uniqueId('hostile'),
    pattern: 'fanout',
    tasks: [
      { id: 'evil', question: 'q', agent: 'sim', params: { answer }, outputSchema, retry: fastRetry },
      { id: 'fine', question: 'q', agent: 'sim', params: { answer: 'ok' }, outputSchema: { type: 'string' } },
    ],
  });
  const began = performance.now();
  let result: JobResult | undefined;
  const ended = handle.result().then((r) => (result = r));
  const during: number[] = [];
  while (!result || during.length < 3) during.push(await victimJob());
  await ended;
  const hostileMs = performance.now() - began;
  console.log(
    `[schema-isolation] ${label}: hostile job ${Math.round(hostileMs)} ms; victim echo baseline max ${Math.round(Math.max(...baseline))} ms, during median ${Math.round(median(during))} ms, max ${Math.round(Math.max(...during))} ms (${during.length} jobs)`,
  );
  return { result: result!, during, baseline };
}

describe('hostile outputSchemas on the shared worker', () => {
  it.each([
    ['allOf k=31', exponentialSchema('allOf', 31), 'x'],
    ['anyOf k=21, failing data', exponentialSchema('anyOf', 21), 1],
    ['{"$ref":"#"}', SELF_REF, 'x'],
    // passes every static rule: only the bound on validation itself stops it
    ['recursion through properties and patternProperties, data 30 deep', DATA_EXPONENTIAL, nested(30)],
  ])('%s fails only its own task as invalid_output; the victim tenant meets its bound', async (label, schema, answer) => {
    const { result, during, baseline } = await underAttack(label, schema, answer);
    const [evil, fine] = result.results;
    expect(evil).toMatchObject({ status: 'failure', failureReason: 'invalid_output' });
    expect(evil.errors.join(' ')).toMatch(/outputSchema/);
    expect(fine).toMatchObject({ status: 'success', data: 'ok' });
    // within 3 s of the victim's own latency on this (shared, loaded) machine; the attack cost 12-70 s before, to
    // every victim job while it lasted. The median, not the slowest: on a machine loaded by others one job may stall alone
    expect(median(during)).toBeLessThan(3000 + Math.max(...baseline));
  });
});
