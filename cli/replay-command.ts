/** The CLI's replay command: a finished job again on another agent or model, and (with --wait) the comparison. */
import type { Command } from 'commander';
import type { JobComparison, ReplayRequest } from 'delegate/client';
import { action, type Context } from './context';
import { ExitCode, note, out, printJson, printTable } from './output';
import { positiveNumber } from './job-commands';
import { usd } from './progress';

/** Prints a comparison for people: one row per subtask, both sides, then the totals. */
function printComparison(c: JobComparison): void {
  const side = (s: JobComparison['subtasks'][number]['source']) =>
    s ? [s.agentId, s.status, usd(s.costUsd), `${s.latencyMs} ms`] : ['-', '-', '-', '-'];
  printTable(
    ['TASK', 'SOURCE', 'STATUS', 'COST', 'LATENCY', 'REPLAY', 'STATUS', 'COST', 'LATENCY', 'SAME OUTPUT'],
    c.subtasks.map((s) => [s.taskId, ...side(s.source), ...side(s.replay), s.outputsEqual === null ? '-' : s.outputsEqual ? 'yes' : 'no']),
  );
  const t = c.totals;
  out(
    `replay ${c.jobId} of ${c.replayOf}: ${t.outputsEqual}/${t.compared} same output · ` +
      `cost ${usd(t.source.costUsd)} → ${usd(t.replay.costUsd)}${t.costRatio === null ? '' : ` (×${t.costRatio})`} · ` +
      `succeeded ${t.source.succeeded} → ${t.replay.succeeded} of ${t.compared} · latency ×${t.latencyRatio ?? '-'}\n`,
  );
}

async function replay(
  ctx: Context,
  jobId: string,
  o: { agent?: string; model?: string; tasks?: string; id?: string; wait?: boolean; timeout?: number },
): Promise<number> {
  const req: ReplayRequest = {
    ...(o.agent ? { agent: o.agent } : {}),
    ...(o.model ? { model: o.model } : {}),
    ...(o.tasks
      ? {
          tasks: o.tasks
            .split(',')
            .map((t) => t.trim())
            .filter(Boolean),
        }
      : {}),
    ...(o.id ? { jobId: o.id } : {}),
  };
  const accepted = await ctx.client.replay(jobId, req);
  ctx.dispatched = true;
  if (!o.wait) {
    if (ctx.json) printJson(accepted);
    else out(`${accepted.jobId}\n`);
    if (!ctx.json) note(`replay ${accepted.jobId} of ${jobId} ${accepted.status}: delegate replay ${jobId} … --wait shows the comparison`);
    return ExitCode.ok;
  }
  note(`replay ${accepted.jobId} of ${jobId} ${accepted.status}; waiting for the comparison`);
  const c = await ctx.client.comparison(accepted.jobId, { timeoutSeconds: o.timeout });
  if (ctx.json) printJson(c);
  else printComparison(c);
  return c.totals.replay.status === 'success' ? ExitCode.ok : ExitCode.failure;
}

/** Registers `delegate replay` on the program. */
export function registerReplayCommand(program: Command): void {
  program
    .command('replay')
    .description("replay a finished job's subtasks on another agent or model as a new job; with --wait, compare the two runs")
    .argument('<jobId>', 'the finished job to replay')
    .option('--agent <id>', 'the agent every replayed agent task runs on')
    .option('--model <model>', "the replay job's model (its llm children run on it)")
    .option('--tasks <ids>', 'comma-separated ids of the tasks to replay (default: all)')
    .option('--id <replayId>', "the replay job's id (default <jobId>-replay-<n>)")
    .option('-w, --wait', 'wait for the replay and print the comparison')
    .option('--timeout <seconds>', 'with --wait: give up waiting after this long (exit 1; the replay keeps running)', positiveNumber)
    .action(action(replay));
}
