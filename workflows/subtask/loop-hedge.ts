/**
 * The subtask loop's side of a hedged step (a task with `hedge`): when the hedge is due, and on
 * which agent it runs. Apart from the loop's interpreter (loop.ts) because it keeps state of its
 * own across steps: the agent's measured latency, read once per run and agent, and `hedge.agent`,
 * resolved once per run. The race itself is hedge.ts's, its books hedge-book.ts's.
 *
 *   delay: measured quantile ──> step: runHedged(primary, prepare: hedge now? on which agent?)
 *     ──> the answer not taken booked ──> the hedge's agent adopted when it won
 */
import { isCancellation, log, patched } from '@temporalio/workflow';
import { readResolved, runManifest, type RunManifest } from '../../core/routing';
import { DEFAULT_HEDGE_AFTER_P, hedgeDelayMs, type HedgeSpec, type StepLatency } from '../../core/hedge';
import { classify } from './classify';
import { HEDGE_PATCH, runHedged, sameAgentHedge, stepLatency, type HedgedResult, type HedgedStep, type StepCall } from './hedge';
import { adoptHedge, bookHedge, hedgeAgentOf, hedgeNow } from './hedge-book';
import type { SubtaskRun } from './run';
import { resolveAgent, stepOptions, stepPolicyOf } from './runtime';
import type { RunningState } from './state';

/** What the hedge needs of the loop: the queue an agent's steps go to, and word that the task went on with the hedge's agent. */
export interface LoopHedgeHost {
  stepQueue(m: RunManifest): string | undefined;
  adopted(): void;
}

/** A hedged task's hedges, for one run of its loop. */
export class LoopHedge {
  /** The record's step latency of the agent it was read for (once per run and agent). */
  private measured?: { agent: string; latency: StepLatency };
  /** `hedge.agent`, resolved at the first hedge (undefined: it could not be; hedges stay on the same agent). */
  private hedgeAgent?: { id: string; manifest?: RunManifest };

  constructor(
    private readonly run: SubtaskRun,
    private readonly r: RunningState,
    private readonly spec: HedgeSpec,
    private readonly host: LoopHedgeHost,
  ) {}

  /**
   * The delay before this step's hedge (undefined: not hedged): the agent's measured quantile, read
   * once per run and agent. A failed look-up is no reason to fail the task: `afterMs` holds then.
   */
  async delay(): Promise<number | undefined> {
    if (!patched(HEDGE_PATCH)) return undefined;
    const { r, run, spec } = this;
    const agentId = r.manifest.id;
    if (this.measured?.agent !== agentId) {
      const input = { tenant: run.inbox.tenant, agentId, pattern: run.input.shown?.pattern, afterP: spec.afterP ?? DEFAULT_HEDGE_AFTER_P };
      this.measured = { agent: agentId, latency: await stepLatency(input).catch((err) => this.unmeasured(agentId, err)) };
    }
    return hedgeDelayMs(spec, this.measured.latency);
  }

  /** A failed latency look-up reads as no measurement; a cancel is not caught. */
  private unmeasured(agentId: string, err: unknown): StepLatency {
    if (isCancellation(err)) throw err;
    log.warn('step latency look-up failed: hedges after afterMs', { taskId: this.run.task.id, agentId, error: classify(err, 1).message });
    return { runs: 0 };
  }

  /** One step with its hedge (hedge.ts); the answer not taken is booked. */
  async step(step: Pick<HedgedStep, 'options' | 'input' | 'delayMs'> & { now: number }): Promise<HedgedResult['outcome']> {
    const { r, run, spec } = this;
    const at = { startedAt: step.now, delayMs: step.delayMs };
    const prepare = async (): Promise<StepCall | undefined> => {
      const v = hedgeNow(r, spec, this.measured?.latency, { ...at, now: Date.now() });
      if (!v.hedge) log.info('step not hedged', { jobId: run.input.jobId, taskId: run.task.id, step: r.steps, why: v.why });
      if (!v.hedge) return undefined;
      const other = hedgeAgentOf(r, spec);
      const m = other === undefined ? undefined : await this.manifest(other);
      return m ? this.callOn(m, step) : sameAgentHedge(step);
    };
    const latencyLeft = step.input.budgetLeft.latencySeconds;
    const h = await runHedged({ ...step, prepare, latencyLeft, cancelled: () => r.cancelRequested });
    bookHedge(r, h);
    const took = h.hedgeWon && h.hedgeAgent !== r.manifest.id ? this.hedgeAgent?.manifest : undefined;
    if (took) {
      // the hedge's agent answered first: the task goes on with it
      adoptHedge(r, took);
      this.host.adopted();
    }
    if (h.hedged)
      log.info('step hedged', {
        jobId: run.input.jobId,
        taskId: run.task.id,
        step: r.steps,
        afterMs: step.delayMs,
        hedgeWon: h.hedgeWon ?? false,
      });
    return h.outcome;
  }

  /** `hedge.agent`'s manifest, resolved once per run; undefined when it cannot be (the hedge stays on the same agent). */
  private async manifest(id: string): Promise<RunManifest | undefined> {
    if (this.hedgeAgent?.id === id) return this.hedgeAgent.manifest;
    const { task, input } = this.run;
    try {
      const found = await resolveAgent({ agent: id, question: task.question, params: task.params, lane: input.agentQueue });
      this.hedgeAgent = { id, manifest: runManifest(readResolved(found).manifest) };
    } catch (err) {
      log.warn('the hedge agent cannot be resolved: hedges stay on the same agent', {
        taskId: task.id,
        agent: id,
        error: classify(err, 1).message,
      });
      this.hedgeAgent = { id };
    }
    return this.hedgeAgent.manifest;
  }

  /** A step's hedge on agent `m`: its own policy, queue (and provider gate) and step key. */
  private callOn(m: RunManifest, step: StepCall): StepCall {
    const { task, input } = this.run;
    const policy = stepPolicyOf(task, m, input.stepCeilingSeconds);
    const options = stepOptions({
      task,
      agentId: m.id,
      policy,
      queue: this.host.stepQueue(m),
      deadline: input.deadline,
      scheduleToStartSeconds: input.stepScheduleToStartSeconds,
      now: Date.now(),
      fairnessKey: m.provider !== undefined ? input.events?.tenant : undefined,
    });
    const stepKey = `${step.input.stepKey}@${m.id}:hedge`;
    return {
      options: { ...options, summary: `${options.summary} (hedge)` },
      input: { ...step.input, agentId: m.id, stepKey, maxAttempts: policy.retry.maxAttempts },
    };
  }
}
