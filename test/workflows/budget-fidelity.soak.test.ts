/**
 * Budget fidelity, the number we quote: over a seeded random run of many jobs (parallel and
 * sequential fan-outs, nested jobs, children with and without budgets of their own, agents
 * that honour the budget they are told and agents that ignore it, and LLM steps the latency
 * budget cuts mid-stream), a job's spend never exceeds its budget by more than its largest
 * single step: spend / budget <= 1 + step / budget. The spend of a cut LLM step is what the
 * fake provider charged for it, not what the job booked: a cut step booked short would show.
 */
import { describe, expect, inject, it } from 'vitest';
import type { JobSpec, TaskSpec } from '../../schemas';
import { runJob, uniqueId } from '../helpers';

/** mulberry32: a small seeded PRNG, so a failing run can be replayed. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Generated {
  spec: JobSpec & { jobId: string };
  largestStep: number;
  /** The job's model when it has a cut LLM step (the fake's tally of it is the step's true spend). */
  cutModel?: string;
}

/** The agent of the cut LLM steps and its pricing (the shared test agents file's `researcher`). */
const LLM = { agent: 'researcher', inputPerMTok: 1000, outputPerMTok: 2000 };

/** What the fake provider charged for `model`, in dollars at the agent's pricing. */
async function chargedUsd(model: string): Promise<number> {
  const c = (await (await fetch(`${inject('fakeLlmUrl')}/v1/_charged?model=${encodeURIComponent(model)}`)).json()) as {
    input: number;
    output: number;
  };
  return (c.input * LLM.inputPerMTok + c.output * LLM.outputPerMTok) / 1e6;
}

function generate(rand: () => number, i: number, cutRand: () => number): Generated {
  const pick = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const sequential = rand() < 0.3;
  let largestStep = 0;
  const simTask = (id: string): TaskSpec => {
    const costUsd = Math.round((0.001 + rand() * 0.02) * 1e6) / 1e6;
    largestStep = Math.max(largestStep, costUsd);
    return {
      id,
      question: `q ${id}`,
      agent: 'sim',
      // only sequential jobs get agents that ignore the budget: parallel ones could each overshoot by a step
      params: { steps: pick(1, 8), costUsd, ignoreBudget: sequential && rand() < 0.5 },
      ...(rand() < 0.4 ? { budget: { costUsd: Math.round(rand() * 0.05 * 1e6) / 1e6 || 0.001 } } : {}),
    };
  };
  const tasks: TaskSpec[] = Array.from({ length: pick(2, 6) }, (_, k) =>
    !sequential && rand() < 0.25
      ? {
          id: `n${k}`,
          question: 'nested',
          job: { pattern: 'fanout', tasks: Array.from({ length: pick(2, 3) }, (_, j) => simTask(`n${k}s${j}`)) },
        }
      : simTask(`t${k}`),
  );
  // most sequential jobs get an LLM step the latency budget cuts mid-stream (its own PRNG: the other jobs stay as they were)
  const cutModel = sequential && cutRand() < 0.8 ? uniqueId(`fidcut${i}`) : undefined;
  // first: it runs before the job's budget is gone
  if (cutModel)
    tasks.unshift({
      id: 'llm',
      question: 'a long answer',
      agent: LLM.agent,
      budget: { latencySeconds: 1 },
    });
  return {
    spec: {
      jobId: uniqueId(`fid${i}`),
      pattern: 'fanout',
      budget: { costUsd: Math.round((0.01 + rand() * 0.09) * 1e6) / 1e6 },
      maxParallel: sequential ? 1 : pick(2, 6),
      tasks,
      ...(cutModel ? { model: cutModel } : {}),
    },
    largestStep,
    ...(cutModel ? { cutModel } : {}),
  };
}

describe('budget fidelity', () => {
  it('spend / budget never exceeds 1 + largest step / budget over 40 random jobs, cut LLM steps included', async () => {
    const rand = prng(20261130);
    const cutRand = prng(20261202);
    const jobs = Array.from({ length: 40 }, (_, i) => generate(rand, i, cutRand));
    // a cut model streams a long answer slowly: one output token every 50 ms, cut after the task's second
    for (const j of jobs.filter((g) => g.cutModel)) {
      const body = JSON.stringify({ model: j.cutModel, text: 'x'.repeat(400), chunkChars: 1, chunkDelayMs: 50 });
      expect((await fetch(`${inject('fakeLlmUrl')}/v1/_script`, { method: 'POST', body })).status).toBe(200);
    }
    const results = await Promise.all(jobs.map((j) => runJob(j.spec)));
    let worst = 0;
    let worstOfBound = 0;
    let cut = 0;
    for (const [i, r] of results.entries()) {
      const budget = jobs[i].spec.budget!.costUsd!;
      const { cutModel } = jobs[i];
      const llm = r.results.find((t) => t.id === 'llm');
      // the true spend: what the job booked, with its LLM step's as the provider charged it
      const llmCharged = cutModel && llm ? await chargedUsd(cutModel) : 0;
      const spend = r.metrics.costUsd - (llm?.metrics.costUsd ?? 0) + llmCharged;
      if (llm && llm.metrics.steps === 0 && llmCharged > 0) {
        cut++;
        expect(llm.errors.join(' '), r.jobId).toMatch(/latency budget/);
        // booked as charged, within a chunk or two in flight when the step was cut
        expect(
          Math.abs(llm.metrics.costUsd - llmCharged),
          `${r.jobId}: booked ${llm.metrics.costUsd}, charged ${llmCharged}`,
        ).toBeLessThanOrEqual(0.005);
      }
      const bound = 1 + Math.max(jobs[i].largestStep, llmCharged) / budget;
      const ratio = spend / budget;
      worst = Math.max(worst, ratio);
      worstOfBound = Math.max(worstOfBound, ratio / bound);
      expect(ratio, `${r.jobId}: spent ${spend} of ${budget}`).toBeLessThanOrEqual(bound + 1e-9);
      expect(r.budget?.ledger.costUsd.reserved).toBeCloseTo(0, 9);
    }
    // the run did cut LLM steps mid-stream
    expect(cut).toBeGreaterThan(0);
    const llmTasks = results.flatMap((r) => r.results.filter((t) => t.id === 'llm'));
    console.log(
      `cut LLM steps: ${cut} of ${llmTasks.length} (${llmTasks.map((t) => `${t.status}/${t.failureReason}/${t.metrics.steps}`).join(' ')})`,
    );
    // the run did exercise the caps: some jobs used (nearly) all of their budget
    expect(worst).toBeGreaterThan(0.9);
    console.log(
      `budget fidelity: worst spend/budget over ${jobs.length} jobs = ${worst.toFixed(4)}; worst spend/(budget + largest step) = ${worstOfBound.toFixed(4)}`,
    );
  });
});
