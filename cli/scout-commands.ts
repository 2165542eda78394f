/**
 * `delegate scout prep|run|show|list|validate|commit` and `delegate feature close`: the read-only code scout. The request comes from
 * flags, or a JSON file (`--file`) that flags override. A refusal before dispatch exits 2: a
 * cap reached (429 scout_cap_exceeded), a scope outside the root (422 path_outside_root), a
 * missing excerpt (400).
 *
 *   prep ──> id, caps left, the prompt          run ──dispatch──> wait ──> the report (exit 0 success/no_findings, 1 partial/error/still running)
 *   prep --harness ──> id taken ── your sub-agent writes report.json ── validate <id> --report f ── commit <id> --report f
 *   (an invalid report exits 2 with each fault's JSON path; the second invalid one is final)
 */
import { Option, type Command } from 'commander';
import type { Scout, ScoutCaps, ScoutDispatchRequest, ScoutReport, ScoutReportOutcome } from 'delegate/client';
import { count } from './catalog-commands';
import { action, type Context } from './context';
import { positiveNumber, readSpec } from './job-commands';
import { ExitCode, note, out, printJson, printTable } from './output';

/** The flags that build a scout request. */
interface RequestFlags {
  file?: string;
  question?: string;
  scope?: string[];
  parentAgent?: string;
  session?: string;
  feature?: string;
  excerpt?: string;
  agent?: string;
}

/** The parent agent when neither the file nor `--parent-agent` says. */
const DEFAULT_PARENT_AGENT = 'delegate-cli';
/** How long `scout run` waits for the report unless `--timeout` says. */
const DEFAULT_RUN_SECONDS = 300;

/** `a,b` → `['a', 'b']`; repeated `--scope` flags add up. */
const scopeList = (v: string, prev: string[] = []) => [
  ...prev,
  ...v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
];

/** The request: the file's fields, then the flags, then the environment's session. */
async function requestOf(o: RequestFlags): Promise<ScoutDispatchRequest> {
  const base = o.file ? await readSpec<Partial<ScoutDispatchRequest>>(o.file) : {};
  const flags: Partial<ScoutDispatchRequest> = {
    question: o.question,
    scopePaths: o.scope,
    parentAgent: o.parentAgent,
    parentSessionId: o.session,
    featureSlug: o.feature,
    parentSessionExcerpt: o.excerpt,
    agent: o.agent,
  };
  const req: Partial<ScoutDispatchRequest> = { ...base };
  for (const [k, v] of Object.entries(flags)) if (v !== undefined) (req as Record<string, unknown>)[k] = v;
  req.parentAgent ??= process.env.DELEGATE_PARENT_AGENT ?? DEFAULT_PARENT_AGENT;
  req.parentSessionId ??= process.env.DELEGATE_SESSION_ID;
  // whatever is still missing, the API names with its field path (exit 2)
  return req as ScoutDispatchRequest;
}

const capsLine = (c: ScoutCaps) =>
  `caps left: ${c.perSession.remaining} of ${c.perSession.limit} for this session · ${c.perScope.remaining} of ${c.perScope.limit} for this scope`;
const oneLine = (s: string, max: number) => s.replace(/\s+/g, ' ').slice(0, max);

/** Prints a scout for people: its state, the report's findings, the recommendation. */
function printScout(s: Scout): void {
  const r: ScoutReport | null = s.report;
  out(
    `scout ${s.id} ${s.state}${r ? ` · ${r.status} · confidence ${r.confidence} · ${r.tokens} tokens${r.dropped_findings ? ` · ${r.dropped_findings} finding(s) dropped` : ''}` : ''}\n`,
  );
  out(`question: ${oneLine(s.question, 200)}\nscope: ${s.scopePaths.join(', ')}\n`);
  if (!r) return;
  if (r.findings.length)
    printTable(
      ['WHERE', 'RELEVANCE', 'EVIDENCE'],
      r.findings.map((f) => [`${f.file}:${f.line}`, f.relevance, oneLine(f.evidence, 80)]),
    );
  out(`recommendation: ${r.recommendation}\nfiles inspected: ${r.files_inspected.length}\n`);
}

/** The exit code of a scout: 0 when it answered (success, or nothing in scope answers), else 1. */
function exitOf(s: Scout): number {
  return s.state !== 'dispatched' && (s.report?.status === 'success' || s.report?.status === 'no_findings')
    ? ExitCode.ok
    : ExitCode.failure;
}

async function run(ctx: Context, o: RequestFlags & { timeout?: number; commit: boolean }): Promise<number> {
  const req = await requestOf(o);
  const d = await ctx.client.scouts.dispatch({ ...req, ...(o.commit ? {} : { autoCommit: false }) });
  ctx.dispatched = true;
  note(`scout ${d.id} dispatched (job ${d.jobId}) · ${capsLine(d.caps)}`);
  const s = await ctx.client.scouts.get(d.id, { waitSeconds: o.timeout ?? DEFAULT_RUN_SECONDS });
  if (s.state === 'dispatched')
    note(
      `scout ${s.id} has no report yet${o.commit ? '' : ' (dispatched with --no-commit: delegate scout commit ' + s.id + ')'}: delegate scout show ${s.id} --wait`,
    );
  // scripts get the report itself once there is one
  if (ctx.json) printJson(s.report ?? s);
  else printScout(s);
  return exitOf(s);
}

/** Registers `scout` and its subcommands on the program. */
export function registerScoutCommands(program: Command): void {
  const scout = program
    .command('scout')
    .description(
      'read-only code scouts: a question about the code answered with file:line findings (read_file and grep only, inside the scout root)',
    )
    .addHelpText(
      'after',
      [
        '',
        'A refusal before dispatch exits 2: over a cap (429 scout_cap_exceeded, with the caps left), a scope outside the root',
        '(422 path_outside_root), an invalid request (400). --session defaults to DELEGATE_SESSION_ID, --parent-agent to',
        `DELEGATE_PARENT_AGENT or "${DEFAULT_PARENT_AGENT}". Example:`,
        '  delegate scout run --question "where is computeBackoff defined" --scope src,lib --session s-42 \\',
        '    --feature retry-policy --excerpt "Changing the retry policy; need to know where the backoff delay is computed."',
      ].join('\n'),
    );

  const withRequest = (cmd: Command) =>
    cmd
      .option(
        '--file <json>',
        'the request as JSON ({ question, scopePaths, parentAgent, parentSessionId, featureSlug, parentSessionExcerpt }); flags override it',
      )
      .option('-q, --question <text>', 'what to find out, e.g. "where is the circuit breaker opened"')
      .option('--scope <paths>', 'files and directories to inspect, comma-separated, relative to the scout root (repeatable)', scopeList)
      .option('--parent-agent <name>', 'who dispatches it')
      .option('--session <id>', 'the parent session (its caps)')
      .option('--feature <slug>', 'the active feature: its scouts are listed together')
      .option('--excerpt <text>', 'why the scout is sent, 50–1000 characters (required)');

  withRequest(scout.command('prep'))
    .description('check a scout without dispatching it: its id, the caps left and the standard prompt')
    .option(
      '--harness',
      'your harness runs the scout with its own sub-agent: the id is taken; send its report with `scout validate|commit <id> --report`',
    )
    .action(
      action(async (ctx, o: RequestFlags & { harness?: boolean }) => {
        const req = await requestOf(o);
        const p = o.harness ? await ctx.client.scouts.prepHarness(req) : await ctx.client.scouts.prep(req);
        if (ctx.json) return printJson(p);
        out(
          `${p.id}\n${capsLine(p.caps)}\nscope: ${p.scopePaths.join(', ')} · tools: ${p.tools.join(', ')} · report ≤ ${p.maxTokens} tokens\n\n${p.prompt}\n`,
        );
      }),
    );

  withRequest(scout.command('run'))
    .description('dispatch a scout and wait for its report; prints it (--json: the report as JSON)')
    .option('--agent <id>', 'the scout agent (default: the deployment\'s, the offline "scout" unless configured)')
    .option('--no-commit', 'do not commit the report at the end: `delegate scout commit <id>` does')
    .option(
      '--timeout <seconds>',
      `give up waiting after this long (default ${DEFAULT_RUN_SECONDS}; exit 1, the scout keeps running)`,
      positiveNumber,
    )
    .action(action(run));

  scout
    .command('show')
    .description('a scout and, once settled, its report (--json: the scout with its report)')
    .argument('<id>')
    .addOption(new Option('-w, --wait [seconds]', 'wait for a dispatched scout to settle (default 60 s)').argParser(positiveNumber))
    .action(
      action(async (ctx, id: string, o: { wait?: number | true }) => {
        const s = await ctx.client.scouts.get(id, { waitSeconds: o.wait === undefined ? 0 : o.wait === true ? 60 : o.wait });
        if (ctx.json) printJson(s);
        else printScout(s);
        // like `status` without a wait, like `result --wait` with one
        return o.wait === undefined ? ExitCode.ok : exitOf(s);
      }),
    );

  scout
    .command('list')
    .description("the tenant's scouts, newest first")
    .option('--feature <slug>', 'scouts of this feature')
    .option('--session <id>', 'scouts of this parent session')
    .option('--page-size <n>', 'at most this many', count)
    .option('--page-token <token>', 'the next page (as the previous one printed it)')
    .action(
      action(async (ctx, o: { feature?: string; session?: string; pageSize?: number; pageToken?: string }) => {
        const page = await ctx.client.scouts.list({
          feature: o.feature,
          parentSessionId: o.session,
          pageSize: o.pageSize,
          nextPageToken: o.pageToken,
        });
        if (ctx.json) return printJson(page);
        printTable(
          ['SCOUT', 'STATE', 'STATUS', 'FEATURE', 'SESSION', 'CREATED', 'QUESTION'],
          page.scouts.map((s) => [s.id, s.state, s.report?.status, s.featureSlug, s.parentSessionId, s.createdAt, oneLine(s.question, 50)]),
        );
        if (page.nextPageToken) note(`more: --page-token ${page.nextPageToken}`);
      }),
    );

  const printOutcome = (ctx: Context, id: string, r: ScoutReportOutcome) => {
    if (ctx.json) return printJson(r);
    out(`scout ${id} report valid${r.committed ? ' and committed' : ' (not committed)'} · ${r.report.status} · ${r.report.findings.length} finding(s) · ${capsLine(r.caps)}
`);
    for (const c of r.cut) note(c);
  };

  scout
    .command('validate')
    .description(
      "check the report your harness's scout wrote for a scout prepped with --harness (an invalid one counts: one retry, the second is final)",
    )
    .argument('<id>')
    .requiredOption(
      '--report <json>',
      'the JSON the scout wrote ({ findings, confidence, recommendation, files_inspected, status }); - for stdin',
    )
    .action(
      action(async (ctx, id: string, o: { report: string }) => {
        printOutcome(ctx, id, await ctx.client.scouts.report(id, await readSpec<unknown>(o.report), { validateOnly: true }));
      }),
    );

  scout
    .command('commit')
    .description(
      "commit a report: with --report, the one your harness's scout wrote (prepped with --harness); without, a finished scout run with --no-commit",
    )
    .argument('<id>')
    .option('--report <json>', "the JSON your harness's scout wrote; - for stdin")
    .action(
      action(async (ctx, id: string, o: { report?: string }) => {
        if (o.report) {
          const r = await ctx.client.scouts.report(id, await readSpec<unknown>(o.report));
          printOutcome(ctx, id, r);
          return r.committed ? ExitCode.ok : ExitCode.failure;
        }
        const c = await ctx.client.scouts.commit(id);
        if (ctx.json) printJson(c);
        else out(`scout ${id} ${c.committed ? 'committed' : `not committed${c.reason ? `: ${c.reason}` : ''}`} · ${capsLine(c.caps)}\n`);
        return c.committed ? ExitCode.ok : ExitCode.failure;
      }),
    );

  program
    .command('feature')
    .description('features: closing one files its scouts into its dossier')
    .command('close')
    .description(
      "close a feature: file each of its scouts into the feature's dossier (a bullet per scout); closing again adds only new ones",
    )
    .argument('<slug>')
    .action(
      action(async (ctx, slug: string) => {
        const d = await ctx.client.scouts.closeFeature(slug);
        if (ctx.json) return printJson(d);
        out(d.markdown);
        note(d.alreadyClosed ? `already closed ${d.closedAt}: ${d.added} scout(s) added` : `closed: ${d.added} scout(s) filed`);
      }),
    );
}
