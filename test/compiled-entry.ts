/**
 * An entry point of this checkout (the CLI, the stdio MCP server) compiled into one ES module,
 * once per test file: esbuild compiles the sources as tsx would on every start, so a test that
 * starts the entry many times runs node on one file instead of tsx's loader resolving and
 * compiling hundreds. The launchers themselves (`cli/bin.js`, `node --import tsx …`) still run
 * where a test says so, and in the docs' examples.
 */
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { inject } from 'vitest';

const compiled = new Map<string, Promise<string>>();

/** The path of `entry` (relative to the repository) compiled with everything it imports. */
export function compiledEntry(entry: string): Promise<string> {
  let out = compiled.get(entry);
  if (!out) {
    out = (async () => {
      // in the run's folder, which the global setup deletes at the end
      const outfile = join(mkdtempSync(join(inject('runDir'), 'entry-')), 'entry.mjs');
      await build({
        entryPoints: [entry],
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        outfile,
        logLevel: 'warning',
        // bundled CommonJS packages (commander, the MCP SDK's dependencies) call require
        banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
      });
      return outfile;
    })();
    compiled.set(entry, out);
  }
  return out;
}
