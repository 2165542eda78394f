/**
 * `delegate subtask`: one subtask written in the research-subtask contract (a JSON file, or -
 * for stdin), its contract output printed as JSON. `--job` reads one already submitted.
 *
 *   file ──subtasks.run(waitSeconds)──> output ──> stdout (exit 0 success, 1 partial/failure)
 *                                  └──> running ──> stdout { id, job_id, status: running } (exit 0; 1 when --wait ran out)
 */
import type { Command } from 'commander';
import { MAX_WAIT_SECONDS, type ResearchSubtaskAnswer, type ResearchSubtaskRequest } from 'delegate/client';
import { action, type Context } from './context';
import { positiveNumber, readSpec } from './job-commands';
import { ExitCode, exitCodeOfStatus, note, printJson, UsageError } from './output';

/** How long `--wait` waits when `--timeout` does not say: a day, that is, as long as any subtask may run. */
const WAIT_FOREVER_SECONDS = 86_400;

/** Options of `delegate subtask`. */
interface SubtaskOptions {
  job?: string;
  wait?: boolean;
  timeout?: number;
  idempotencyKey?: string;
}

/** Prints the answer (always JSON: the contract is a JSON contract) and says what it means for the exit code. */
function printAnswer(a: ResearchSubtaskAnswer, waited: boolean): number {
  printJson(a);
  if (a.status === 'running') {
    note(`subtask ${a.id} running as job ${a.job_id}${waited ? ' (the wait ran out)' : ''}: delegate subtask --job ${a.job_id} --wait`);
    return waited ? ExitCode.failure : ExitCode.ok;
  }
  if (a.status !== 'success') note(`subtask ${a.id} ${a.status}${a.failure_reason ? ` (${a.failure_reason})` : ''}`);
  return exitCodeOfStatus(a.status);
}

async function subtask(ctx: Context, file: string | undefined, o: SubtaskOptions): Promise<number> {
  if ((file === undefined) === (o.job === undefined))
    throw new UsageError('give a subtask file (or - for stdin), or --job <jobId> to read one already submitted');
  const waitSeconds = o.wait ? (o.timeout ?? WAIT_FOREVER_SECONDS) : 0;
  if (o.job !== undefined) return printAnswer(await ctx.client.subtasks.get(o.job, { waitSeconds }), Boolean(o.wait));
  const input = await readSpec<ResearchSubtaskRequest>(file!);
  const began = Date.now();
  // one long poll on the POST itself: its refusals are before dispatch (2), anything after is the job's (1)
  const answer = await ctx.client.subtasks.run(input, {
    waitSeconds: Math.min(waitSeconds, MAX_WAIT_SECONDS),
    idempotencyKey: o.idempotencyKey,
  });
  ctx.dispatched = true;
  if (answer.status !== 'running' || !o.wait) return printAnswer(answer, false);
  return printAnswer(
    await ctx.client.subtasks.get(answer.job_id, { waitSeconds: Math.max(0, waitSeconds - (Date.now() - began) / 1000) }),
    true,
  );
}

/** Registers `subtask` on the program. */
export function registerSubtaskCommand(program: Command): void {
  program
    .command('subtask')
    .description(
      'run one subtask written in the research-subtask contract (snake_case JSON); prints its contract output as JSON (exit 0 success, 1 partial or failure)',
    )
    .argument('[file]', 'the subtask as JSON (a file, or - for stdin)')
    .option('--job <jobId>', 'instead of a file: read the output of a subtask already submitted')
    .option('-w, --wait', 'wait for the output (without it: the output if ready at once, else { id, job_id, status: "running" })')
    .option('--timeout <seconds>', 'with --wait: give up after this long (exit 1; the subtask keeps running)', positiveNumber)
    .option('--idempotency-key <key>', 'the same key (and input) never starts a second job')
    .addHelpText(
      'after',
      [
        '',
        'Example subtask.json:',
        '  {"id":"sub_1","parent_id":"plan_7","question":"Which PostgreSQL extensions speed up analytics?",',
        '   "scope":["web"],"budget":{"latency_seconds":120,"cost_usd":0.5,"tool_calls":20},',
        '   "context_seed":[],"stop_conditions":["evidence >= 5"]}',
      ].join('\n'),
    )
    .action(action(subtask));
}
