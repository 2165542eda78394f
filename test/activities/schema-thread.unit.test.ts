import { afterAll, describe, expect, it } from 'vitest';
import { createSchemaThreads } from '../../activities/schema-thread';
import { DATA_EXPONENTIAL, exponentialSchema, nested } from '../hostile-schemas';

// the pool of this file: short bounds, so a hostile call ends quickly
const pool = createSchemaThreads({ size: 2, timeoutMs: 1500, maxHeapMb: 48 });
afterAll(() => pool.close());

const number = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };

describe('schema threads', () => {
  it('compiles and validates off the event loop: why data fails, null when it passes, why a schema does not compile', async () => {
    expect(await pool.compile(number)).toEqual({ ok: true, why: null });
    expect(await pool.validate(number, { n: 'one' })).toEqual({ ok: true, why: 'data/n must be number' });
    expect(await pool.validate(number, { n: 1 })).toEqual({ ok: true, why: null });
    expect(await pool.compile({ type: 'nope' })).toMatchObject({
      ok: false,
      compiles: false,
      error: expect.stringMatching(/^not a valid JSON Schema/),
    });
    expect(await pool.compile(exponentialSchema('anyOf', 21))).toMatchObject({
      ok: false,
      compiles: false,
      error: expect.stringMatching(/expands to more than/),
    });
  });

  it('stops a validation past its time bound while the event loop stays free, and the next call is answered', async () => {
    let ticks = 0;
    const tick = setInterval(() => ticks++, 50);
    const began = performance.now();
    const verdict = await pool.validate(DATA_EXPONENTIAL, nested(34), { owner: 'attacker' });
    clearInterval(tick);
    expect(verdict).toMatchObject({
      ok: false,
      compiles: true,
      error: expect.stringMatching(/^outputSchema validation passed its bound of 1500 ms and was stopped/),
    });
    expect(performance.now() - began).toBeLessThan(10_000);
    // the loop kept ticking all along (a stalled loop would have ticked about once)
    expect(ticks).toBeGreaterThan(10);
    expect(await pool.validate(number, { n: 2 })).toEqual({ ok: true, why: null });
  });

  it('stops a validation past its heap bound (errors piling up) and answers the next call', async () => {
    // anyOf recursing through a property: every failing branch at every level keeps its errors
    const piling = {
      anyOf: [
        { properties: { a: { $ref: '#' } }, required: ['b'] },
        { properties: { a: { $ref: '#' } }, required: ['c'] },
      ],
    };
    const verdict = await pool.validate(piling, nested(40), { owner: 'attacker' });
    expect(verdict).toMatchObject({
      ok: false,
      compiles: true,
      error: expect.stringMatching(/passed its (memory bound of 48 MB|bound of 1500 ms)/),
    });
    expect(await pool.validate(number, { n: 3 })).toEqual({ ok: true, why: null });
  });

  it('answers data nested past the stack as a verdict, not a crash', async () => {
    const deep = { type: 'object', properties: { a: { $ref: '#' } } };
    for (const depth of [30_000, 200_000]) {
      expect(await pool.validate(deep, nested(depth))).toMatchObject({
        ok: false,
        error: expect.stringMatching(/ran out of stack|could not take the data/),
      });
    }
    expect(await pool.validate(number, { n: 5 })).toEqual({ ok: true, why: null });
  });

  it("keeps one owner to size - 1 threads: another owner's call is answered while the first owner's hostile calls run", async () => {
    const hostile = [1, 2, 3].map(() => pool.validate(DATA_EXPONENTIAL, nested(34), { owner: 'attacker' }));
    // let the attacker's calls take their thread first
    await new Promise((r) => setTimeout(r, 100));
    const began = performance.now();
    expect(await pool.validate(number, { n: 4 }, { owner: 'victim' })).toEqual({ ok: true, why: null });
    const victimMs = performance.now() - began;
    expect(victimMs).toBeLessThan(1000);
    for (const v of await Promise.all(hostile)) expect(v).toMatchObject({ ok: false });
  });
});
