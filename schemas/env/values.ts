/**
 * The value types environment variables share across the configuration's areas: a port, a
 * boolean written as true/false/1/0, and a comma-separated list.
 */
import { z } from 'zod';

/** A TCP port; 0 where a variable says it turns its server off. */
export const port = z.coerce.number().int().min(0).max(65_535);
/** `true`, `false`, `1` or `0`, as a boolean. */
export const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
/** A comma-separated list, `def` when unset. */
export const listOf = (def: string) =>
  z
    .string()
    .default(def)
    .transform((v) =>
      v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    );
/** A comma-separated list, empty when unset. */
export const list = listOf('');
