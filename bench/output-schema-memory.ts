/**
 * Heap after compiling and using N distinct outputSchemas: the old shared Ajv (every compile
 * cached forever) against activities/output-schema.ts (fresh Ajv per compile, bounded LRU).
 * Usage: npx tsx bench/output-schema-memory.ts [old|new] [count] [--with-v8-cache]; prints one JSON line.
 */
import { Ajv } from 'ajv';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { compileOutputSchema, outputSchemas } from '../activities/output-schema';

setFlagsFromString('--expose-gc');
// V8 keeps the code of every `new Function` (how Ajv compiles) in its eval cache until a memory-reducing
// collection; off, the figures show what the validators themselves keep alive
if (!process.argv.includes('--with-v8-cache')) setFlagsFromString('--no-compilation-cache');
const gc = runInNewContext('gc') as () => void;

/** A distinct schema of about 16 KB: 40 properties with enums, bounds and an RE2-safe pattern. */
function distinctSchema(n: number): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < 40; i++) {
    properties[`field_${n}_${i}`] = {
      type: 'string',
      minLength: 1,
      maxLength: 100 + i,
      pattern: `^[a-z]{1,${(n % 50) + 1}}[0-9]*$`,
      enum: Array.from({ length: 8 }, (_, k) => `v${n}_${i}_${k}`),
      description: `field ${i} of schema ${n} `.repeat(10),
    };
  }
  return { type: 'object', properties, required: [`field_${n}_0`], additionalProperties: false };
}

const mode = process.argv[2] ?? 'new';
const count = Number(process.argv[3] ?? 1000);
const shared = new Ajv({ allErrors: true, strict: false });
const mb = (b: number) => (b / 1024 / 1024).toFixed(1);
gc();
const before = process.memoryUsage();
const started = performance.now();
for (let n = 0; n < count; n++) {
  const schema = distinctSchema(n);
  const data = { [`field_${n}_0`]: `v${n}_0_0` };
  if (mode === 'old') shared.compile(schema)(data);
  else {
    const c = compileOutputSchema(schema);
    if (!c.ok) throw new Error(c.error);
    c.validate(data);
  }
}
gc();
const after = process.memoryUsage();
console.log(
  JSON.stringify({
    mode,
    count,
    schemaBytes: JSON.stringify(distinctSchema(0)).length,
    seconds: ((performance.now() - started) / 1000).toFixed(1),
    heapBeforeMb: mb(before.heapUsed),
    heapAfterMb: mb(after.heapUsed),
    heapGrowthMb: mb(after.heapUsed - before.heapUsed),
    rssBeforeMb: mb(before.rss),
    rssAfterMb: mb(after.rss),
    cache: mode === 'new' ? outputSchemas.stats() : undefined,
  }),
);
