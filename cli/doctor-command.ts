/**
 * `delegate doctor [--fix]`: the record's hygiene for the key's tenant, and what the automatic
 * prune does next and when. `--fix` deletes the orphaned scouts (no feature, older than 90 days)
 * first; scouts with a feature are never deleted. Exit 0 unless a warning remains (1): an
 * advisory is what `--fix` or the next prune mends.
 *
 *   doctor ──GET /v1/doctor──> checks + the prune's next run
 *   doctor --fix ──POST /v1/doctor/fix──> what went, then the same report
 */
import type { Command } from 'commander';
import type { DoctorReport } from 'delegate/client';
import { action } from './context';
import { ExitCode, out, printJson } from './output';

const MARK = { ok: 'ok', advisory: 'advisory', warning: 'WARNING' } as const;

/** The report for people: a line per check, then what the prune does next. */
function printReport(r: DoctorReport): void {
  for (const c of r.checks) out(`${MARK[c.status].padEnd(8)} ${c.id}: ${c.message}\n`);
  const p = r.prune;
  const schedule = p.exists ? `${p.scheduleId}${p.every ? `, every ${p.every}` : ''}` : p.scheduleId;
  out(`next     prune (${schedule}): ${p.message}\n`);
}

/** Registers `delegate doctor` on the program. */
export function registerDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description(
      "the record's hygiene for your tenant (orphaned scouts, approvals pending past their expiry) and what the automatic prune does next",
    )
    .option('--fix', 'delete orphaned scouts (no feature, older than 90 days) now; scouts with a feature are never deleted')
    .action(
      action(async (ctx, o: { fix?: boolean }) => {
        const fixed = o.fix ? await ctx.client.doctorFix() : undefined;
        const report = fixed?.report ?? (await ctx.client.doctor());
        if (ctx.json) printJson(fixed ?? report);
        else {
          if (fixed) out(`fixed    deleted ${fixed.fixed.scouts} orphaned scout(s)\n`);
          printReport(report);
        }
        return report.status === 'warning' ? ExitCode.failure : ExitCode.ok;
      }),
    );
}
