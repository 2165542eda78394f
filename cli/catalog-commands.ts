/** The CLI's listing commands (agents, jobs, reports) and `mcp`, Delegate as an MCP server on stdio. */
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { JobOutcome, Pattern } from 'delegate/client';
import { action, DEFAULT_URL, type GlobalOptions } from './context';
import { KEY_PLACEHOLDER, mcpConfig } from './mcp-config';
import { ExitCode, note, out, printJson, printTable } from './output';
import { usd } from './progress';

const PATTERNS = ['fanout', 'pipeline', 'vote'];
const OUTCOMES = ['success', 'partial', 'failure', 'cancelled'];

/** Collects repeated `--label k=v` options into one object. */
function collectLabel(v: string, prev: Record<string, string> = {}): Record<string, string> {
  const at = v.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError('key=value');
  return { ...prev, [v.slice(0, at)]: v.slice(at + 1) };
}

/** Parses a whole number of at least 1. */
export function count(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a whole number, 1 or more');
  return n;
}

/** Registers agents, jobs, reports and mcp on the program. */
export function registerCatalogCommands(program: Command): void {
  program
    .command('agents')
    .description('the agents this deployment can run')
    .action(
      action(async (ctx) => {
        const agents = await ctx.client.agents();
        if (ctx.json) return printJson(agents);
        printTable(
          ['ID', 'KIND', 'VERSION', 'CAPABILITIES', 'DESCRIPTION'],
          agents.map((a) => [a.id, a.kind, a.version, a.capabilities.join(','), a.description.slice(0, 60)]),
        );
      }),
    );

  program
    .command('agent')
    .description("one agent's manifest and your tenant's circuit breaker on it (shared by every worker)")
    .argument('<id>', 'the agent id')
    .action(
      action(async (ctx, id: string) => {
        const agent = await ctx.client.agent(id);
        if (ctx.json) return printJson(agent);
        const b = agent.breaker;
        printTable(
          ['ID', 'KIND', 'CAPABILITIES', 'BREAKER', 'FAILURES', 'OPEN UNTIL', 'LAST FAILURE'],
          [
            [
              agent.id,
              agent.kind,
              agent.capabilities.join(','),
              b ? b.state : 'none (builtin)',
              b ? `${b.consecutiveFailures}/${b.failureThreshold}` : '',
              b?.openUntil ?? '',
              b?.lastFailure ? `${b.lastFailure.at} ${b.lastFailure.error ?? ''}`.slice(0, 80) : '',
            ],
          ],
        );
      }),
    );

  program
    .command('jobs')
    .alias('list')
    .description("the tenant's jobs, newest first")
    .addOption(new Option('--pattern <pattern>').choices(PATTERNS))
    .addOption(new Option('--status <status>').choices(['running', ...OUTCOMES]))
    .option('--label <key=value>', 'jobs with this label (repeat for all of several)', collectLabel)
    .option('--page-size <n>', 'at most this many', count)
    .option('--page-token <token>', 'the next page (as the previous one printed it)')
    .addOption(new Option('--limit <n>', 'deprecated: --page-size').argParser(count).hideHelp())
    .action(
      action(
        async (
          ctx,
          o: {
            pattern?: Pattern;
            status?: 'running' | JobOutcome;
            label?: Record<string, string>;
            pageSize?: number;
            pageToken?: string;
            limit?: number;
          },
        ) => {
          const page = await ctx.client.list({
            pattern: o.pattern,
            status: o.status,
            labels: o.label,
            pageSize: o.pageSize ?? o.limit,
            nextPageToken: o.pageToken,
          });
          if (ctx.json) return printJson(page);
          printTable(
            ['JOB', 'PATTERN', 'STATE', 'STATUS', 'STARTED'],
            page.jobs.map((j) => [j.jobId, j.pattern, j.state, j.status, j.startedAt]),
          );
          if (page.nextPageToken) note(`more: --page-token ${page.nextPageToken}`);
        },
      ),
    );

  program
    .command('reports')
    .description('search the record of finished jobs (newest finish first), or with --summary sum them up over a period')
    .option('--summary', 'counts and spend by status, agent and label over the period (default: the last 30 days)')
    .addOption(new Option('--pattern <pattern>').choices(PATTERNS))
    .addOption(new Option('--status <status>').choices(OUTCOMES))
    .option('--label <key=value>', 'jobs with this label (repeat for all of several)', collectLabel)
    .option('--agent <agentId>', 'jobs with a subtask this agent ran')
    .option('--from <iso>', 'finished at or after, e.g. 2026-11-01T00:00:00Z')
    .option('--to <iso>', 'finished before')
    .option('-q, --query <words>', 'words that must all occur in the objective, questions or summaries')
    .option('--page-size <n>', 'at most this many', count)
    .option('--page-token <token>', 'the next page (as the previous one printed it)')
    .addOption(new Option('--cursor <cursor>', 'deprecated: --page-token').hideHelp())
    .addOption(new Option('--limit <n>', 'deprecated: --page-size').argParser(count).hideHelp())
    .option('--top <n>', 'with --summary: how many labels', count)
    .action(
      action(
        async (
          ctx,
          o: {
            summary?: boolean;
            pattern?: Pattern;
            status?: JobOutcome;
            label?: Record<string, string>;
            agent?: string;
            from?: string;
            to?: string;
            query?: string;
            pageSize?: number;
            pageToken?: string;
            cursor?: string;
            limit?: number;
            top?: number;
          },
        ) => {
          if (o.summary) {
            const s = await ctx.client.reportsSummary({ from: o.from, to: o.to, top: o.top });
            if (ctx.json) return printJson(s);
            out(`${s.from} .. ${s.to}: ${s.jobs} jobs · ${s.subtasks} subtasks · ${usd(s.spend.costUsd)} · ${s.spend.tokens} tokens\n`);
            printTable(
              ['STATUS', 'JOBS', 'COST'],
              s.byStatus.map((b) => [b.status, b.jobs, usd(b.costUsd)]),
            );
            printTable(
              ['AGENT', 'SUBTASKS', 'COST', 'TOKENS'],
              s.byAgent.map((b) => [b.agentId, b.subtasks, usd(b.costUsd), b.tokens]),
            );
            if (s.topLabels.length)
              printTable(
                ['LABEL', 'JOBS'],
                s.topLabels.map((l) => [l.label, l.jobs]),
              );
            return;
          }
          const page = await ctx.client.reports({
            pattern: o.pattern,
            status: o.status,
            labels: o.label,
            agent: o.agent,
            from: o.from,
            to: o.to,
            q: o.query,
            pageSize: o.pageSize ?? o.limit,
            nextPageToken: o.pageToken ?? o.cursor,
          });
          if (ctx.json) return printJson(page);
          printTable(
            ['JOB', 'PATTERN', 'STATUS', 'CLOSED', 'SUBTASKS', 'COST', 'OBJECTIVE'],
            page.reports.map((r) => [
              r.jobId,
              r.pattern,
              r.status,
              r.closedAt,
              r.subtasks,
              usd(r.spend.costUsd),
              (r.objective ?? r.digest).slice(0, 50),
            ]),
          );
          if (page.nextPageToken) note(`more: --page-token ${page.nextPageToken}`);
        },
      ),
    );

  program
    .command('mcp')
    .description('serve Delegate as an MCP server on stdio (for agent harnesses), calling the API at --url with --key')
    .option('--print-config', 'print the mcpServers entry that starts this server from any folder, and exit')
    .action(async (o: { printConfig?: boolean }, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOptions>();
      const url = g.url ?? process.env.DELEGATE_URL ?? DEFAULT_URL;
      const key = g.key ?? process.env.DELEGATE_KEY ?? '';
      if (o.printConfig) {
        printJson(mcpConfig(url, key));
        if (!key) note(`no key given (--key or DELEGATE_KEY): replace ${KEY_PLACEHOLDER}`);
        return;
      }
      // loaded only here: the rest of the CLI does not pay for the MCP SDK
      const { runMcpStdio } = await import('../mcp/stdio');
      await runMcpStdio({ url, key });
      process.exitCode = ExitCode.ok;
    });
}
