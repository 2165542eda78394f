/**
 * Admission control at submission: a job that asks for it is forecast, and when its budget
 * is unlikely to suffice (below its `confidence`) it is refused, started with a warning, or
 * re-planned to fit before it starts. The forecast and the re-plan run in a forecast thread
 * (forecast-thread-replan.ts), within a bound of work; this applies the changes it chose.
 *
 *   spec ──forecast──> P(budget suffices) ≥ confidence? ──yes──> admitted
 *                                           │ no
 *        refuse ──> 422 with the forecast   warn ──> started, `warned`   replan ──> greedy: of every single change
 *        (a cheaper capable agent for a group of tasks, one voter fewer, a lower maxParallel of a quorum fan-out)
 *        the one that raises the probability most, until it fits (`replanned`) or nothing helps (422 with what was tried)
 */
import type { AgentRegistry } from '../activities';
import { AdmissionDecisionSchema, EstimateSchema, type AdmissionDecision, type Estimate, type JobSpec } from '../schemas';
import { HttpProblem, ProblemSchema } from './errors';
import { ADMISSION_MAX_DRAWS, ADMISSION_MAX_MS, type Forecaster } from './forecast';
import { applyChange } from './forecast-thread-replan';

/** The 422 of admission control: the problem, the forecast and the decision. */
export const AdmissionProblemSchema = ProblemSchema.extend({
  forecast: EstimateSchema.optional().describe('admission control: the forecast the job was refused on'),
  admission: AdmissionDecisionSchema.optional(),
});

/** What admission decided, the spec to start and the forecast it rests on. */
export interface Admitted {
  spec: JobSpec;
  decision?: AdmissionDecision;
  forecast?: Estimate;
}

const pct = (p: number | null) => (p === null ? 'unknown' : `${(p * 100).toFixed(1)}%`);

/** The admission check of a submission (a job without `admission` passes untouched, with no forecast). */
export async function admit(forecaster: Forecaster, _registry: AgentRegistry, tenant: string, spec: JobSpec): Promise<Admitted> {
  const a = spec.admission;
  if (!a) return { spec };
  const { mode, confidence } = a;
  const outcome = await forecaster.admission(tenant, spec, a);
  const forecast: Estimate = { ...outcome.forecast, windowDays: outcome.windowDays };
  const p = forecast.budgetSuffices;
  const decision = (d: AdmissionDecision['decision'], message: string, changes: string[] = [], prob = p): AdmissionDecision => ({
    mode,
    confidence,
    decision: d,
    budgetSuffices: prob,
    message,
    changes,
  });
  if (p === null)
    return {
      spec,
      forecast,
      decision: decision('admitted', `the forecast cannot tell whether the budget suffices: ${forecast.notes.join('; ')}`),
    };
  if (p >= confidence)
    return { spec, forecast, decision: decision('admitted', `the budget suffices with probability ${pct(p)} ≥ ${pct(confidence)}`) };
  const short = `the budget suffices with probability ${pct(p)}, below the ${pct(confidence)} asked`;
  if (mode === 'refuse') {
    const d = decision('refused', short);
    throw new HttpProblem(
      422,
      'Job cannot run',
      `admission control refused the job: ${short}`,
      [{ path: 'body.budget', message: short }],
      undefined,
      {
        forecast,
        admission: d,
      },
    );
  }
  if (mode === 'warn') return { spec, forecast, decision: decision('warned', `started anyway: ${short}`) };
  const replan = outcome.replan ?? { best: outcome.forecast, changes: [] };
  const { changes, stopped } = replan;
  const best: Estimate = { ...replan.best, windowDays: outcome.windowDays };
  const texts = changes.map((c) => c.text);
  const q = best.budgetSuffices;
  if (q !== null && q >= confidence) {
    const current = changes.reduce((s, c) => applyChange(s, c.op, (t, to) => ({ ...t, agent: to })), spec);
    return {
      spec: current,
      forecast: best,
      decision: decision(
        'replanned',
        `re-planned with ${changes.length} change(s): the budget now suffices with probability ${pct(q)}`,
        texts,
        q,
      ),
    };
  }
  const bound =
    stopped === 'draws'
      ? ` (re-planning stopped at its bound of ${ADMISSION_MAX_DRAWS.toLocaleString('en')} Monte Carlo draws)`
      : stopped === 'time'
        ? ` (re-planning stopped at its bound of ${ADMISSION_MAX_MS / 1000} s)`
        : '';
  const d = decision('refused', `${short}, and re-planning reached only ${pct(q)}${bound}`, texts, q);
  throw new HttpProblem(
    422,
    'Job cannot run',
    `admission control could not fit the job to its budget: ${d.message}${changes.length ? ` after ${texts.join('; ')}` : stopped ? '' : ' (nothing to change)'}`,
    [{ path: 'body.budget', message: d.message }],
    undefined,
    { forecast: best, admission: d },
  );
}
