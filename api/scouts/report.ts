/**
 * A scout the harness runs itself (PROTOCOLS.md §2, the original flow): prep took its id, the
 * harness's own sub-agent (Read and Grep only) wrote the answer, and it comes back here to be
 * validated and committed. The host checks, not the agent: the schema, every path against the
 * prep's scope and the sandbox, each finding against its line; caps are taken at commit.
 *
 *   report(answer) ──schema?──scope?──┬─ invalid: attempts+1 ── 422 (JSON path) | 2nd: scout `error`, final
 *                                     └─ valid ── findings verified, fitted ── validateOnly? 200 : commit (caps, 429) ── 200
 */
import { reportFromAnswer } from '../../activities/scout/commit';
import { reportPathRefusal } from '../../activities/scout/report-scope';
import type { ScoutCaps, ScoutRemaining, ScoutStore } from '../../record';
import { ScoutAnswerSchema, type ScoutReport } from '../../schemas/scout';
import type { TokenizerFamily } from '../../contracts/job';
import { formatPath, HttpProblem, type FieldError } from '../errors';

/** Invalid reports a prepped scout may send: the first gets one retry, the second is final. */
export const MAX_REPORT_ATTEMPTS = 2;

/** A report that does not hold: 422 with the JSON path of each fault, the attempt it was, and whether it was the last. */
export class ScoutReportProblem extends HttpProblem {
  constructor(
    code: 'report_invalid' | 'path_outside_root' | 'path_denied' | 'not_found' | 'path_outside_scope',
    errors: FieldError[],
    attempts: number,
    final: boolean,
  ) {
    super(
      422,
      'Scout report refused',
      final
        ? `the second invalid report is final: the scout is settled as error (${errors[0]?.message ?? code})`
        : `invalid report (${errors[0]?.path}: ${errors[0]?.message}); one retry is left: re-prompt the scout and send its new report`,
      errors,
      undefined,
      { code, attempts, retriesLeft: final ? 0 : MAX_REPORT_ATTEMPTS - attempts, final },
    );
  }
}

/** What the report step needs from the scout service. */
export interface ReportDeps {
  scouts: ScoutStore;
  rootFor: (tenant: string) => string | undefined;
  caps: ScoutCaps;
  allow: readonly string[];
  report: { maxTokens: number; tokenizer: TokenizerFamily };
}

/** A valid report: committed (the caps left after it), only validated, or refused over a cap at commit. */
export interface ReportOutcome {
  committed: boolean;
  report: ScoutReport;
  /** What the host changed: findings dropped, texts cut to fit. */
  cut: string[];
  remaining?: ScoutRemaining;
  capRefused?: 'session' | 'scope';
}

/** Validates a harness's report of a prepped scout, and (unless `validateOnly`) commits it under the caps. */
export async function reportScout(
  deps: ReportDeps,
  tenant: string,
  id: string,
  body: unknown,
  validateOnly: boolean,
): Promise<ReportOutcome> {
  const row = await deps.scouts.get(tenant, id);
  if (!row) throw new HttpProblem(404, 'Not found', `no scout "${id}"`);
  if (row.state !== 'prepped')
    throw new HttpProblem(
      409,
      'Conflict',
      row.state === 'dispatched'
        ? `scout "${id}" was dispatched to run here: its report is committed by its job (or POST /v1/scouts/${id}/commit)`
        : `scout "${id}" is already ${row.state === 'committed' ? 'committed' : 'settled as error'}`,
    );
  const root = deps.rootFor(tenant);
  if (root === undefined) throw new HttpProblem(422, 'Scout report refused', 'no scout root is configured for this tenant');

  const refuse = async (code: ConstructorParameters<typeof ScoutReportProblem>[0], errors: FieldError[]) => {
    const n = await deps.scouts.reportInvalid(tenant, id, MAX_REPORT_ATTEMPTS, Date.now());
    if (!n) throw new HttpProblem(409, 'Conflict', `scout "${id}" is no longer waiting for a report`);
    throw new ScoutReportProblem(code, errors, n.attempts, n.final);
  };
  const parsed = ScoutAnswerSchema.safeParse(body);
  if (!parsed.success)
    return refuse(
      'report_invalid',
      parsed.error.issues.map((i) => ({ path: formatPath(i.path, 'body'), message: i.message })),
    );
  const bad = await reportPathRefusal(root, row.scopePaths, parsed.data, deps.allow);
  if (bad) return refuse(bad.reason, [{ path: bad.at, message: `${bad.reason}: ${bad.path}` }]);

  const built = await reportFromAnswer({ root }, row, parsed.data, deps.report, new Date());
  if (validateOnly) return { committed: false, report: built.report, cut: built.cut };
  const done = await deps.scouts.commitReported(
    tenant,
    row,
    built.report,
    built.report.status,
    built.report.tokens,
    Date.parse(built.report.completed_at),
    deps.caps,
  );
  if (!done.ok && done.cap === null)
    throw new HttpProblem(409, 'Conflict', `scout "${id}" is already ${done.state === 'committed' ? 'committed' : (done.state ?? 'gone')}`);
  if (!done.ok) return { committed: false, report: built.report, cut: built.cut, capRefused: done.cap, remaining: done.remaining };
  return { committed: true, report: built.report, cut: built.cut, remaining: done.remaining };
}
