/**
 * The inbox on the command line: `delegate approvals` lists what waiting subtasks ask for,
 * `delegate approve ID` decides one (`--reject`, `--answer JSON` for a question, `--note`),
 * `delegate steer JOB TASK TEXT` sends a running subtask a message for its next step.
 */
import type { Command } from 'commander';
import type { ApprovalDecision, InboxItem } from 'delegate/client';
import { action } from './context';
import { out, printJson, printTable, UsageError } from './output';

/** What an item asks, in one cell. */
function asks(i: InboxItem): string {
  if (i.kind === 'question') return String(i.detail.question ?? '');
  if (i.reason === 'spend') return `step ${String(i.detail.step)} plans $${String(i.detail.plannedCostUsd)}`;
  if (i.reason === 'tool') return `tools ${((i.detail.tools as string[] | undefined) ?? []).join(', ')}`;
  if (i.kind === 'budget') return `budget spent: ${((i.detail.spent as string[] | undefined) ?? []).join(', ')}`;
  return 'start';
}

/** Registers the inbox commands on the program. */
export function registerApprovalCommands(program: Command): void {
  program
    .command('approvals')
    .description('the inbox: approvals, questions from subagents and budget waits (pending unless --state says)')
    .option('--job <jobId>', "only this job's")
    .option('--label <key=value...>', 'only jobs with these labels')
    .option('--state <state>', 'pending | approved | rejected | answered | timed_out | cancelled')
    .action(
      action(async (ctx, o: { job?: string; label?: string[]; state?: InboxItem['state'] }) => {
        const labels = o.label
          ? Object.fromEntries(o.label.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]))
          : undefined;
        const items = await ctx.client.approvals.list({ jobId: o.job, labels, state: o.state });
        if (ctx.json) return printJson(items);
        if (items.length === 0) return out('nothing waits\n');
        printTable(
          ['id', 'kind', 'job', 'task', 'asks', 'expires'],
          items.map((i) => [i.id, i.kind, i.jobId, i.taskId, asks(i), i.expiresAt]),
        );
      }),
    );

  program
    .command('approve')
    .description('approve an inbox item (or --reject it, or --answer a question)')
    .argument('<id>')
    .option('--reject', 'reject instead')
    .option('--answer <json>', "a question's answer, as JSON (checked against its answerSchema)")
    .option('--note <text>', 'why (kept with the decision)')
    .action(
      action(async (ctx, id: string, o: { reject?: boolean; answer?: string; note?: string }) => {
        let decision: ApprovalDecision;
        if (o.answer !== undefined) {
          try {
            decision = { answer: JSON.parse(o.answer) as unknown };
          } catch {
            throw new UsageError('--answer takes JSON (quote a string: \'"yes"\')');
          }
        } else decision = { decision: o.reject ? 'reject' : 'approve' };
        const item = await ctx.client.approvals.decide(id, { ...decision, ...(o.note ? { note: o.note } : {}) });
        if (ctx.json) printJson(item);
        else out(`${item.kind} ${item.id} of job ${item.jobId}: ${item.state}\n`);
      }),
    );

  program
    .command('steer')
    .description('send a running subtask a message: its next step receives it')
    .argument('<jobId>')
    .argument('<taskId>')
    .argument('<text>')
    .option('--from <who>', 'who sends it (in the notes)')
    .action(
      action(async (ctx, jobId: string, taskId: string, text: string, o: { from?: string }) => {
        const r = await ctx.client.steer(jobId, taskId, text, o.from ? { from: o.from } : {});
        if (ctx.json) printJson(r);
        else out(`message queued for subtask ${r.taskId} of job ${jobId}\n`);
      }),
    );
}
