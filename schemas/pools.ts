/**
 * Agent pools: an agent may name a pool, and a pool's steps run on an activity task queue of
 * their own, so a worker hosts the pools it is configured for, each with its own slot count.
 *
 *   agents.json  { "id": "vision", "pool": "gpu", ... }
 *   DELEGATE_POOLS="gpu=4,cheap=16"  ──>  { gpu: 4, cheap: 16 }  (pool → concurrent steps per lane)
 */
import { z } from 'zod';

/** A pool's name: like an agent id (it ends up in task queue names). */
export const PoolNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'a pool name: letters, digits, "_", "." or "-", at most 64, starting with a letter or digit');

/** Most concurrent steps one pool may be given on one lane of one worker. */
export const MAX_POOL_SLOTS = 10_000;

/** Concurrent steps per lane of a hosted pool when DELEGATE_POOLS does not say. */
export const DEFAULT_POOL_SLOTS = 20;

/** The pools a worker hosts and the concurrent steps of each (per lane). */
export type PoolSlots = Record<string, number>;

/**
 * DELEGATE_POOLS: `pool=slots` pairs, comma-separated. Each bad pair is an issue naming its
 * pool, so the worker's start error says which one to fix.
 */
export const PoolsEnvSchema = z.string().transform((text, ctx): PoolSlots => {
  const pools: PoolSlots = {};
  const seen = new Set<string>();
  let bad = 0;
  text
    .split(',')
    .map((pair) => pair.trim())
    .filter(Boolean)
    .forEach((pair, i) => {
      const at = pair.indexOf('=');
      const name = (at < 0 ? pair : pair.slice(0, at)).trim();
      const slots = at < 0 ? '' : pair.slice(at + 1).trim();
      const twice = seen.has(name);
      seen.add(name);
      const problem = !PoolNameSchema.safeParse(name).success
        ? `pair ${i + 1} has an invalid pool name "${name}" (letters, digits, "_", "." or "-", at most 64)`
        : twice
          ? `pool "${name}" is listed twice`
          : !/^\d+$/.test(slots) || +slots < 1 || +slots > MAX_POOL_SLOTS
            ? `pool "${name}" needs its concurrent steps as a whole number from 1 to ${MAX_POOL_SLOTS} ("${name}=4"), got "${slots}"`
            : undefined;
      if (problem) {
        bad++;
        ctx.addIssue({ code: 'custom', message: problem });
      } else pools[name] = +slots;
    });
  if (Object.keys(pools).length === 0 && bad === 0)
    ctx.addIssue({ code: 'custom', message: 'lists no pool: unset it to host every pool of the agents file' });
  return pools;
});
