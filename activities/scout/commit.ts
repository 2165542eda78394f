/**
 * The scout's last stage: its answer turned into the report the record keeps. Shared by the
 * job's `finishScout` activity (automatic commit) and the API's explicit commit.
 *
 *   TaskResult ──answer valid?──> findings checked against their files (fabricated ones dropped)
 *             ──> report fitted under its token size ──> record: committed (caps used) + `scout.committed`
 *             └─ no valid answer (invalid after its re-prompt, a denied tool, …) ──> status error, place freed + `scout.failed`
 */
import type { JobEvents, ScoutRecord, ScoutStore } from '../../record';
import type { TaskResult } from '../../schemas';
import { ScoutAnswerSchema, ScoutReportSchema, type ScoutAnswer, type ScoutReport } from '../../schemas/scout';
import { fitReport, verifyFindings } from './verify';
import type { ScoutJobInput } from '../../contracts/job';

/** What the scout's end needs: the record, and the root its findings are checked under. */
export interface ScoutCommitDeps {
  scouts: ScoutStore;
  events?: JobEvents;
  /** The tenant's scout root (undefined: none configured, so no finding verifies). */
  rootFor: (tenant: string) => string | undefined;
}

/** A report built from a scout's result: what it is, and what the host changed on the way. */
export interface BuiltReport {
  report: ScoutReport;
  /** Whether the scout produced a valid answer (false: an `error` report). */
  valid: boolean;
  cut: string[];
}

/** The recommendation of a scout that gave no valid answer. */
function failureAdvice(result: TaskResult | undefined): string {
  const why = result ? `${result.failureReason ?? result.status}: ${result.errors.at(-1) ?? result.summary}` : 'it returned no result';
  return `The scout ended without a valid report (${why})`.slice(0, 960) + '. Read the files yourself or send a narrower scout.';
}

/** The report's own fields, from the record: what the parent asked, and when it was answered. */
const reportHead = (row: ScoutRecord, at: Date) => ({
  id: row.id,
  parent_agent: row.parentAgent,
  parent_session_id: row.parentSessionId,
  parent_session_excerpt: row.excerpt,
  feature_slug: row.featureSlug,
  question: row.question,
  scope: { paths: row.scopePaths },
  completed_at: at.toISOString(),
});

/** The report of a scout from its subtask's result. */
export async function buildScoutReport(
  deps: { root: string | undefined },
  row: ScoutRecord,
  result: TaskResult | undefined,
  job: Pick<ScoutJobInput, 'maxTokens' | 'tokenizer'>,
  at: Date,
): Promise<BuiltReport> {
  const head = reportHead(row, at);
  const answer = result?.status === 'success' ? ScoutAnswerSchema.safeParse(result.data) : undefined;
  if (!answer?.success) {
    const report: ScoutReport = {
      ...head,
      findings: [],
      confidence: 'low',
      recommendation: failureAdvice(result),
      files_inspected: [],
      status: 'error',
      dropped_findings: 0,
      tokens: 0,
    };
    const fitted = fitReport(ScoutReportSchema.parse(report), job.maxTokens, job.tokenizer);
    return { report: fitted.report, valid: false, cut: fitted.cut };
  }
  return reportFromAnswer(deps, row, answer.data, job, at);
}

/** The report of a valid scout answer (the scout agent's, or one a harness ran): fabricated findings dropped, fitted to its size. */
export async function reportFromAnswer(
  deps: { root: string | undefined },
  row: ScoutRecord,
  answer: ScoutAnswer,
  job: Pick<ScoutJobInput, 'maxTokens' | 'tokenizer'>,
  at: Date,
): Promise<BuiltReport> {
  const checked = await verifyFindings(deps.root, row.scopePaths, answer.findings);
  // an answer whose every finding was made up has found nothing
  const status = checked.kept.length === 0 && answer.status === 'success' ? 'no_findings' : answer.status;
  const report = ScoutReportSchema.parse({
    ...reportHead(row, at),
    ...answer,
    findings: checked.kept,
    status,
    dropped_findings: checked.dropped.length,
    tokens: 0,
  });
  const fitted = fitReport(report, job.maxTokens, job.tokenizer);
  return {
    report: fitted.report,
    valid: true,
    cut: [...checked.dropped.map((d) => `dropped finding ${d.finding.file}:${d.finding.line} (${d.why})`), ...fitted.cut],
  };
}

/** The outcome of a commit attempt. */
export type CommitOutcome =
  | { committed: true; report: ScoutReport }
  | { committed: false; reason: 'not_found' | 'already_committed' | 'failed' | 'invalid'; report?: ScoutReport };

/**
 * Builds the report and settles the scout in the record: committed when valid, failed (its place
 * freed) when not; the job's stream hears which. Idempotent: a settled scout stays as it is.
 */
export async function settleScout(
  deps: ScoutCommitDeps,
  tenant: string,
  id: string,
  result: TaskResult | undefined,
  job: Pick<ScoutJobInput, 'maxTokens' | 'tokenizer'>,
  at = new Date(),
): Promise<CommitOutcome> {
  const row = await deps.scouts.get(tenant, id);
  if (!row) return { committed: false, reason: 'not_found' };
  if (row.state !== 'dispatched')
    return { committed: false, reason: row.state === 'committed' ? 'already_committed' : 'failed', report: row.report as ScoutReport };
  const built = await buildScoutReport({ root: deps.rootFor(tenant) }, row, result, job, at);
  const event = (type: 'scout.committed' | 'scout.failed') =>
    row.jobId &&
    deps.events?.append(tenant, row.jobId, [
      {
        key: `${type}:${id}`,
        type,
        data: {
          scoutId: id,
          status: built.report.status,
          tokens: built.report.tokens,
          findings: built.report.findings.length,
          dropped: built.report.dropped_findings,
          cut: built.cut,
        },
      },
    ]);
  if (!built.valid) {
    const failed = await deps.scouts.fail(tenant, id, built.report, at.getTime());
    if (failed.failed) await event('scout.failed');
    return { committed: false, reason: 'invalid', report: built.report };
  }
  const done = await deps.scouts.commit(tenant, id, built.report, built.report.status, built.report.tokens, at.getTime());
  if (!done.committed) return { committed: false, reason: done.reason, report: built.report };
  await event('scout.committed');
  return { committed: true, report: built.report };
}

/** The activity a scout job ends with. */
export function createScoutActivities(deps: ScoutCommitDeps) {
  return {
    /** Settles a finished scout job: commits its report, or records why there is none; with autoCommit off, only a failure. */
    async finishScout({
      tenant,
      scout,
      result,
    }: {
      tenant: string;
      scout: ScoutJobInput;
      result?: TaskResult;
    }): Promise<{ state: string; status: string | null }> {
      if (!scout.autoCommit && result?.status === 'success') return { state: 'dispatched', status: null };
      const out = await settleScout(deps, tenant, scout.id, result, scout);
      return { state: out.committed ? 'committed' : out.reason, status: out.report?.status ?? null };
    },
  };
}
