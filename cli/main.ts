/**
 * `delegate`: the command line of the Delegate API, built on the typed client. `--json` on
 * any command prints machine output (JSON) on stdout and nothing else there.
 * Exit codes: 0 success; 1 a job failed, was partial or cancelled, or a call failed after
 * dispatch; 2 refused before dispatch (invalid spec, caps, auth: a 4xx, e.g. a scout over its
 * cap or outside the scout root) or bad usage.
 */
import { Command, CommanderError } from 'commander';
import { DEFAULT_URL } from './context';
import { registerApprovalCommands } from './approval-commands';
import { registerCatalogCommands } from './catalog-commands';
import { registerJobCommands } from './job-commands';
import { registerReplayCommand } from './replay-command';
import { registerScoutCommands } from './scout-commands';
import { registerDoctorCommand } from './doctor-command';
import { registerSubtaskCommand } from './subtask-command';
import { ExitCode } from './output';
import pkg from '../package.json' with { type: 'json' };

/** Builds the program (tests may parse with it without a process of their own). */
export function buildProgram(): Command {
  const program = new Command('delegate')
    .description(
      'Delegate subtasks to subagents on Temporal: submit jobs, follow them, control them; run research-contract subtasks and code scouts.',
    )
    .version(pkg.version, '-V, --version', 'the version of delegate')
    .option('--url <url>', `the API (env DELEGATE_URL, default ${DEFAULT_URL})`)
    .option('--key <key>', 'a bearer key (env DELEGATE_KEY)')
    .option('--json', 'machine output (JSON) on stdout only')
    .showHelpAfterError('(delegate --help for usage)')
    // usage errors are refusals before dispatch: exit 2, not commander's 1
    .exitOverride((err: CommanderError) => {
      throw err;
    });
  registerJobCommands(program);
  registerReplayCommand(program);
  registerSubtaskCommand(program);
  registerScoutCommands(program);
  registerCatalogCommands(program);
  registerApprovalCommands(program);
  registerDoctorCommand(program);
  return program;
}

/** Runs the CLI on `argv` and sets the process's exit code. */
export async function main(argv: string[] = process.argv): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // help and version are exit 0; anything else commander refuses is a usage error
      process.exitCode = err.exitCode === 0 ? ExitCode.ok : ExitCode.refused;
      return;
    }
    throw err;
  }
}

// a reader that stopped reading (`delegate list | head -1`) is not an error: stop quietly
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(ExitCode.ok);
});
await main();
