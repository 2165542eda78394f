import { z } from 'zod';
import { EvidenceSchema } from '../../schemas';
import { AXES, SPEND_AXES, type SpendAxis } from '../../core/budget-axes';
import { usageShape } from '../../schemas/budget-axes';
import { AgentFatalError, AgentRetryableError } from '../errors';
import type { AgentDefinition } from './types';

/** Spend per step on every accumulating axis of the table (`costUsd`, `tokens`, ...), default 0. */
function perStep() {
  const shape = usageShape(false);
  return Object.fromEntries(SPEND_AXES.map((a) => [a, shape[a].max(AXES[a].max).default(0).describe(`${AXES[a].label} per step`)])) as {
    [K in SpendAxis]: z.ZodDefault<z.ZodNumber>;
  };
}

const SimParams = z.strictObject({
  answer: z.unknown().optional().describe('final data; default the question'),
  repromptAnswer: z.unknown().optional().describe('final data when the host re-prompts (an invalid first answer, then a fixed one)'),
  summary: z.string().max(10_000).optional().describe('the final summary; default "sim answered after n step(s)"'),
  confidence: z.number().min(0).max(1).default(0.9),
  steps: z.number().int().min(1).max(100_000).default(1),
  latencyMs: z.number().int().min(0).max(3_600_000).default(0).describe('sleep per step'),
  ...perStep(),
  tools: z.array(z.string()).max(100).default([]).describe('tools each step uses; must be in the task scope'),
  failAttempts: z.number().int().min(0).max(100).default(0).describe('the first n attempts of each step throw a retryable error'),
  failRate: z.number().min(0).max(1).default(0).describe('chance that an attempt throws a retryable error (seeded)'),
  successRate: z
    .number()
    .min(0)
    .max(1)
    .default(1)
    .describe("the agent's quality: chance its final step succeeds (seeded per step key); otherwise it fails for good"),
  seed: z.number().int().default(0),
  fatal: z.boolean().default(false).describe('throw a non-retryable error'),
  hang: z.boolean().default(false).describe('never return (until cancelled)'),
  ignoreBudget: z.boolean().default(false).describe('spend the full step even past the budget left'),
  evidence: z.array(EvidenceSchema).max(1000).default([]),
  followUps: z.array(z.string()).max(100).default([]),
  echoPrevious: z.boolean().default(false).describe("answer with the previous pipeline stage's data (StepRequest.previous)"),
  echoSeed: z.boolean().default(false).describe("answer with the task's contextSeed as the host handed it over (ids and urls)"),
  ask: z
    .strictObject({
      question: z.string().min(1).max(10_000),
      answerSchema: z.record(z.string(), z.unknown()).optional(),
      atStep: z.number().int().min(0).default(0),
    })
    .optional()
    .describe('ask this question (instead of a result) at step atStep; the next step gets the answer'),
  echoHuman: z.boolean().default(false).describe('answer with the answers and steering messages the steps received: { answers, messages }'),
});
type SimParams = z.infer<typeof SimParams>;

/** A deterministic value in [0, 1) from a string: the same step and attempt always draw the same. */
export function seededRandom(key: string): number {
  let h = 2166136261;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619);
  h = Math.imul(h ^ (h >>> 15), 2246822507);
  h = Math.imul(h ^ (h >>> 13), 3266489909);
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}

const clamp = (want: number, left: number | undefined, honour: boolean) => (honour ? Math.min(want, left ?? Infinity) : want);

/**
 * `sim`: the deterministic test double. Every behaviour a real agent can show (latency,
 * spend, retries, fatal errors, hangs, evidence) is a knob in `params`.
 */
export const simAgent: AgentDefinition<SimParams> = {
  manifest: {
    id: 'sim',
    version: '1.0.0',
    description: 'Deterministic simulated agent for tests and demos; behaviour set by params.',
    kind: 'builtin',
    capabilities: ['sim', 'test'],
    inputSchema: z.toJSONSchema(SimParams, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>,
    limits: { timeoutSeconds: 30, maxSteps: 100_000 },
    retry: { maxAttempts: 3, initialIntervalSeconds: 1, backoffCoefficient: 2, maximumIntervalSeconds: 10 },
    tools: ['search', 'fetch', 'calculator'],
  },
  params: SimParams as unknown as z.ZodType<SimParams>,
  toolsFor: (p) => p.tools,
  async step({ task, params: p, step, attempt, budgetLeft, stepKey, previous, sleep, reprompt, state, answer, messages }) {
    if (p.fatal) throw new AgentFatalError(`sim: fatal error at step ${step}`);
    if (attempt <= p.failAttempts)
      throw new AgentRetryableError(`sim: attempt ${attempt} of step ${step} fails (failAttempts ${p.failAttempts})`);
    if (p.failRate > 0 && seededRandom(`${p.seed}|${stepKey}|${attempt}`) < p.failRate) {
      throw new AgentRetryableError(`sim: random failure at step ${step}, attempt ${attempt} (failRate ${p.failRate})`);
    }
    if (p.hang) {
      for (;;) await sleep(60_000);
    }
    if (p.latencyMs > 0) await sleep(p.latencyMs);
    if (step + 1 >= p.steps && p.successRate < 1 && seededRandom(`${p.seed}|quality|${stepKey}`) >= p.successRate)
      throw new AgentFatalError(`sim: wrong answer at step ${step} (successRate ${p.successRate})`);
    const honour = !p.ignoreBudget;
    const usage = Object.fromEntries(SPEND_AXES.map((a) => [a, clamp(p[a], budgetLeft[a], honour)]));
    const before = (state ?? {}) as { answers?: unknown[]; messages?: string[] };
    const heard = {
      answers: [...(before.answers ?? []), ...(answer ? [answer.answer] : [])],
      messages: [...(before.messages ?? []), ...(messages ?? []).map((m) => m.text)],
    };
    if (p.ask && step === p.ask.atStep && !answer) {
      const { question, answerSchema } = p.ask;
      return {
        done: false,
        usage,
        summary: `sim asks: ${question}`,
        ask: { question, answerSchema },
        state: { stepsDone: step + 1, ...heard },
      };
    }
    const done = step + 1 >= p.steps;
    const final =
      reprompt !== undefined && p.repromptAnswer !== undefined
        ? p.repromptAnswer
        : p.echoSeed
          ? (task.contextSeed ?? []).map((e) => ({ id: e.id, url: e.url }))
          : p.echoPrevious
            ? previous?.data
            : p.answer !== undefined
              ? p.answer
              : task.question;
    return {
      done,
      usage,
      summary: done ? (p.summary ?? `sim answered after ${step + 1} step(s)`) : `sim step ${step + 1} of ${p.steps}`,
      data: done ? (p.echoHuman ? heard : final) : undefined,
      confidence: p.confidence,
      evidence: step === 0 ? p.evidence : [],
      followUps: done ? p.followUps : [],
      citations: step === 0 ? p.evidence.map((e) => e.id) : [],
      channelsHit: ['sim', ...p.tools],
      state: { stepsDone: step + 1, ...(p.echoHuman ? heard : {}) },
    };
  },
};

/** What a sim variant changes: its id, capabilities, and the defaults of its params (its cost per step, its quality…). */
export interface SimVariantOptions {
  id: string;
  description?: string;
  capabilities?: string[];
  /** Params a task does not set: e.g. `{ costUsd: 0.01, successRate: 0.9, latencyMs: 50 }`. */
  defaults?: Partial<z.input<typeof SimParams>>;
}

/** A `sim` under another id with its own defaults: agents of known cost and quality for tests and benches. */
export function createSimAgent(o: SimVariantOptions): AgentDefinition<SimParams> {
  const defaults = o.defaults ?? {};
  return {
    ...simAgent,
    manifest: {
      ...simAgent.manifest,
      id: o.id,
      description: o.description ?? `Simulated agent ${o.id}: sim with defaults ${JSON.stringify(defaults)}`,
      capabilities: o.capabilities ?? simAgent.manifest.capabilities,
    },
    params: z.preprocess(
      (p) => (p !== null && typeof p === 'object' && !Array.isArray(p) ? { ...defaults, ...p } : p),
      SimParams,
    ) as unknown as z.ZodType<SimParams>,
  };
}
