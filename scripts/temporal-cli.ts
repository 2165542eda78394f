/**
 * Finds the Temporal CLI, or gets the pinned version once into a tools folder outside the clone
 * (keyed by version) so every clone and CI run on the machine reuses it: built with `go install`
 * where Go is, else downloaded from the CLI's GitHub release and checked against its published
 * checksums (scripts/go-tools.ts, scripts/release-download.ts).
 * Run directly (`npm run temporal:install`) to install and print its path.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { ensureTool, toolFolder, type PinnedTool } from './go-tools';

/** The pinned CLI version (newer tags cannot be `go install`ed: replace directives). */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';

/** Where the pinned CLI lives once built or downloaded. */
export function toolsDir(env: NodeJS.ProcessEnv = process.env): string {
  return toolFolder(`temporal-${TEMPORAL_CLI_VERSION}`, env);
}

/** The CLI as a pinned tool: its `go install` package and its release archive. */
export function temporalCliTool(env: NodeJS.ProcessEnv = process.env): PinnedTool {
  const version = TEMPORAL_CLI_VERSION.slice(1);
  return {
    label: `the Temporal CLI ${TEMPORAL_CLI_VERSION}`,
    dir: toolsDir(env),
    binaries: ['temporal'],
    go: { packages: [`github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`], built: { temporal: 'temporal' } },
    // the CLI's .goreleaser.yml: temporal_cli_<version>_<os>_<arch>.tar.gz (the binary and LICENSE), checksums.txt
    release: {
      repo: 'temporalio/cli',
      tag: TEMPORAL_CLI_VERSION,
      archive: (p) => `temporal_cli_${version}_${p.os}_${p.arch}.tar.gz`,
      checksums: ['checksums.txt'],
      files: { temporal: 'temporal' },
    },
    otherwise:
      '  Install one of:\n' +
      '   - the Temporal CLI: https://docs.temporal.io/cli (e.g. `brew install temporal`), on PATH or in TEMPORAL_CLI; or\n' +
      '   - Go >= 1.23 (https://go.dev/dl), then run `npm run temporal:install`;\n' +
      '  or set DELEGATE_TOOLS_DOWNLOAD_URL to a mirror of the GitHub releases,\n' +
      '  or point TEMPORAL_ADDRESS at a running Temporal server.',
  };
}

/**
 * The Temporal CLI to use: $TEMPORAL_CLI (an existing path, as the SDK's `existing-path`),
 * `temporal` on PATH, the cached one, a `go install` build, or a download.
 */
export async function ensureTemporalCli(
  log: (line: string) => void = (l) => console.error(l),
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const explicit = env.TEMPORAL_CLI;
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`TEMPORAL_CLI points at ${explicit}, which does not exist`);
    return explicit;
  }
  return (await ensureTool(temporalCliTool(env), log, env)).temporal;
}

/** The CLI's version line, e.g. to print at start. */
export function cliVersion(bin: string): string {
  return spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const bin = await ensureTemporalCli().catch((err: Error) => {
    console.error(err.message);
    process.exit(1);
  });
  console.log(`${bin} (${cliVersion(bin)})`);
}
