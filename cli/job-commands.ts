/** The CLI's job commands: submit (and wait), status, result, events, stop, cancel, budget add. */
import { readFile } from 'node:fs/promises';
import { InvalidArgumentError, type Command } from 'commander';
import { DelegateTimeoutError, type BudgetAdd, type JobEvent, type JobResult, type JobSpecInput, type JobView } from 'delegate/client';
import { action, type Context } from './context';
import { ExitCode, exitCodeOfStatus, note, out, printJson, printTable, UsageError } from './output';
import { usd } from './progress';
import { waitWithProgress } from './wait';

/** Parses a positive number option (commander turns the error into a usage error). */
export function positiveNumber(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('a positive number');
  return n;
}

/** Reads a spec file (`-` is stdin) as JSON; a usage error (2) when it is not. */
export async function readSpec<T = JobSpecInput>(path: string): Promise<T> {
  let text: string;
  try {
    text = path === '-' ? await new Response(process.stdin as unknown as ReadableStream).text() : await readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new UsageError(`${path} is not JSON: ${(err as Error).message}`);
  }
}

/** Agent subtasks across every level of nesting (what the progress line counts). */
function leafCount(job: { tasks?: object[] }): number {
  let n = 0;
  for (const t of job.tasks ?? []) n += 'job' in t && t.job ? leafCount(t.job as typeof job) : 1;
  return n;
}

const oneLine = (s: string | undefined, max = 60) => (s ?? '').replace(/\s+/g, ' ').slice(0, max);

/** Prints a finished job for people: one row per subtask, then the totals. */
function printResult(r: JobResult): void {
  printTable(
    ['TASK', 'AGENT', 'STATUS', 'REASON', 'COST', 'STEPS', 'PRIORITY', 'SUMMARY'],
    r.results.map((t) => [
      t.id,
      t.agentId,
      t.status,
      t.failureReason,
      usd(t.metrics.costUsd),
      t.metrics.steps,
      t.priority,
      oneLine(t.summary),
    ]),
  );
  out(
    `job ${r.jobId} (${r.pattern}) ${r.status} · ${r.metrics.subtasks} subtasks · ${usd(r.metrics.costUsd)} · ${r.metrics.tokens} tokens · ${r.metrics.latencyMs} ms\n`,
  );
  if (r.vote) out(`vote winner: ${JSON.stringify(r.vote.winner)} (agreement ${r.vote.agreement})\n`);
}

/** Prints a job's view for people. */
function printView(v: JobView): void {
  const p = v.progress;
  const cost = v.ledger?.costUsd;
  out(`job ${v.jobId}${v.pattern ? ` (${v.pattern})` : ''} ${v.status ?? v.state}\n`);
  if (p)
    out(
      `progress ${p.completed}/${p.total} done · ${p.running} running · ${p.pending} pending · ${p.succeeded} ok · ${p.partial} partial · ${p.failed} failed\n`,
    );
  if (cost) out(`spend ${usd(cost.spent)}${cost.limit === null ? '' : ` of ${usd(cost.limit)}`}\n`);
  else if (v.result) out(`spend ${usd(v.result.metrics.costUsd)} · ${v.result.metrics.tokens} tokens\n`);
  if (v.subtasks?.length) {
    printTable(
      ['TASK', 'STATE', 'AGENT', 'STATUS', 'COST', 'PRIORITY'],
      v.subtasks.map((s) => [
        s.id,
        s.state,
        s.agentId,
        s.status,
        s.metrics ? usd(s.metrics.costUsd) : s.ledger ? usd(s.ledger.costUsd.spent) : undefined,
        s.priority,
      ]),
    );
  }
  if (v.links.temporalUi) out(`temporal ui ${v.links.temporalUi}\n`);
}

/** One event on one line, for people. */
function eventLine(e: JobEvent): string {
  const d = e.data as Record<string, unknown>;
  const parts: string[] = [];
  for (const k of ['taskId', 'agentId', 'status', 'failureReason', 'step', 'attempt', 'pattern', 'tasks'])
    if (d[k] !== undefined && d[k] !== null) parts.push(`${k}=${String(d[k])}`);
  const cost = (d.usage as { costUsd?: number } | undefined)?.costUsd ?? (d.metrics as { costUsd?: number } | undefined)?.costUsd;
  if (cost !== undefined) parts.push(`cost=${usd(cost)}`);
  const limit = (d.ledger as { costUsd?: { limit: number | null; spent: number } } | undefined)?.costUsd;
  if (limit) parts.push(`budget=${usd(limit.spent)}/${limit.limit === null ? '∞' : usd(limit.limit)}`);
  if (d.winner !== undefined) parts.push(`winner=${JSON.stringify(d.winner)}`);
  // a subtask.delta: the text a model turn streamed, quoted so it stays on its line
  if (typeof d.text === 'string') parts.push(`text=${JSON.stringify(d.text)}`);
  return `${String(e.seq).padStart(4)} ${e.at} ${e.type.padEnd(16)} ${parts.join(' ')}`.trimEnd();
}

async function submit(ctx: Context, path: string, o: { wait?: boolean; idempotencyKey?: string; timeout?: number }): Promise<number> {
  const spec = await readSpec(path);
  const accepted = await ctx.client.submit(spec, { idempotencyKey: o.idempotencyKey });
  ctx.dispatched = true;
  if (!o.wait) {
    if (ctx.json) printJson(accepted);
    else out(`${accepted.jobId}\n`);
    if (!ctx.json)
      note(`job ${accepted.jobId} ${accepted.status}: delegate status ${accepted.jobId} · delegate result ${accepted.jobId} --wait`);
    return ExitCode.ok;
  }
  if (!ctx.json || !process.stderr.isTTY) note(`job ${accepted.jobId} ${accepted.status}`);
  const result = await waitWithProgress(ctx, accepted.jobId, {
    total: leafCount(spec),
    limitUsd: spec.budget?.costUsd,
    timeoutSeconds: o.timeout,
    tty: process.stderr.isTTY,
  });
  if (ctx.json) printJson(result);
  else printResult(result);
  return exitCodeOfStatus(result.status);
}

async function result(ctx: Context, jobId: string, o: { wait?: boolean; timeout?: number }): Promise<number> {
  const r = await ctx.client.waitForResult(jobId, { timeoutSeconds: o.wait ? o.timeout : 0 }).catch((err: unknown) => {
    if (err instanceof DelegateTimeoutError) return err;
    throw err;
  });
  if (r instanceof DelegateTimeoutError) {
    // still running: say so (the view the API answered with, in --json) and exit 1, so `result` never passes for a job with no result
    if (ctx.json) printJson(r.view);
    else printView(r.view);
    note(`job ${jobId} is still running${o.wait ? '' : ': add --wait to wait for it'}`);
    return ExitCode.failure;
  }
  if (ctx.json) printJson(r);
  else printResult(r);
  return exitCodeOfStatus(r.status);
}

/** Registers the job commands on the program. */
export function registerJobCommands(program: Command): void {
  program
    .command('submit')
    .description('submit a job spec (JSON file, or - for stdin); prints the job id, or with --wait the result')
    .argument('<spec>', 'path of a JobSpec JSON file, or - for stdin')
    .option('-w, --wait', 'wait for the result, with live progress on stderr')
    .option('--idempotency-key <key>', 'the same key (and spec) never starts a second job')
    .option('--timeout <seconds>', 'with --wait: give up waiting after this long (exit 1; the job keeps running)', positiveNumber)
    .action(action(submit));

  program
    .command('status')
    .description("a job's state, progress, spend and subtasks")
    .argument('<jobId>')
    .action(
      action(async (ctx, jobId: string) => {
        const v = await ctx.client.get(jobId);
        if (ctx.json) printJson(v);
        else printView(v);
      }),
    );

  program
    .command('result')
    .description("a job's result (exit 0 success, 1 partial/failure/cancelled or still running)")
    .argument('<jobId>')
    .option('-w, --wait', 'wait while the job runs')
    .option('--timeout <seconds>', 'with --wait: give up after this long', positiveNumber)
    .action(action(result));

  program
    .command('events')
    .description("follow a job's live events, one line each, until it finishes (--json: one JSON object per line)")
    .argument('<jobId>')
    .option('--after <seq>', 'start after this event', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('an event seq (0 or more)');
      return n;
    })
    .action(
      action(async (ctx, jobId: string, o: { after?: number }) => {
        for await (const e of ctx.client.events(jobId, { after: o.after })) {
          out(`${ctx.json ? JSON.stringify(e) : eventLine(e)}\n`);
        }
      }),
    );

  for (const verb of ['stop', 'cancel'] as const) {
    program
      .command(verb)
      .description(
        verb === 'stop'
          ? 'graceful stop: running subtasks finish their step and return partial results'
          : 'hard cancel: children are cancelled; finished results are kept',
      )
      .argument('<jobId>')
      .option('--reason <text>', 'why (kept in the log)')
      .action(
        action(async (ctx, jobId: string, o: { reason?: string }) => {
          const a = await ctx.client[verb](jobId, o.reason ? { reason: o.reason } : {});
          if (ctx.json) printJson(a);
          else out(`job ${a.jobId} ${a.status}\n`);
        }),
      );
  }

  program
    .command('budget')
    .description('live budget changes')
    .command('add')
    .description("add to a running job's budget (or, with --task, to one running subtask's)")
    .argument('<jobId>')
    .option('--cost-usd <n>', 'US dollars to add', positiveNumber)
    .option('--tokens <n>', 'tokens to add', positiveNumber)
    .option('--tool-calls <n>', 'tool calls to add', positiveNumber)
    .option('--latency-seconds <n>', 'seconds of wall clock to add', positiveNumber)
    .option('--task <taskId>', "add to this subtask's budget, within what the job has left")
    .action(
      action(async (ctx, jobId: string, o: BudgetAdd & { task?: string }) => {
        const { task, ...add } = o;
        if (Object.keys(add).length === 0) throw new UsageError('say what to add: --cost-usd, --tokens, --tool-calls or --latency-seconds');
        const r = task ? await ctx.client.addSubtaskBudget(jobId, task, add) : await ctx.client.addBudget(jobId, add);
        if (ctx.json) printJson(r);
        else {
          const c = r.ledger.costUsd;
          out(
            `${task ? `subtask ${task} of ` : ''}job ${jobId}: cost ${usd(c.spent)} spent of ${c.limit === null ? 'unlimited' : usd(c.limit)} (${c.remaining === null ? 'unlimited' : usd(c.remaining)} left)\n`,
          );
        }
      }),
    );
}
