/**
 * Finds the Temporal CLI, or builds the pinned version once into a tools folder outside
 * the clone (keyed by version) so every clone and CI run on the machine reuses it.
 * Run directly (`npm run temporal:install`) to install and print its path.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { goInstall, onPath, toolFolder } from './go-tools';

/** The pinned CLI version (newer tags cannot be `go install`ed: replace directives). */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';

/** Where the pinned CLI lives once built. */
export function toolsDir(): string {
  return toolFolder(`temporal-${TEMPORAL_CLI_VERSION}`);
}

/** The Temporal CLI to use: $TEMPORAL_CLI, `temporal` on PATH, the cached build, or a fresh build. */
export async function ensureTemporalCli(log: (line: string) => void = (l) => console.error(l)): Promise<string> {
  const explicit = process.env.TEMPORAL_CLI;
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`TEMPORAL_CLI points at ${explicit}, which does not exist`);
    return explicit;
  }
  const found = onPath('temporal');
  if (found) return found;
  const dir = await goInstall(
    {
      label: `the Temporal CLI ${TEMPORAL_CLI_VERSION}`,
      dir: toolsDir(),
      packages: [`github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`],
      binaries: { temporal: 'temporal' },
      withoutGo:
        '  Install one of:\n' +
        '   - the Temporal CLI: https://docs.temporal.io/cli (e.g. `brew install temporal`), on PATH; or\n' +
        '   - Go >= 1.23 (https://go.dev/dl), then run `npm run temporal:install`;\n' +
        '  or point TEMPORAL_ADDRESS at a running Temporal server.',
    },
    log,
  );
  return join(dir, 'temporal');
}

/** The CLI's version line, e.g. to print at start. */
export function cliVersion(bin: string): string {
  return spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const bin = await ensureTemporalCli();
  console.log(`${bin} (${cliVersion(bin)})`);
}
