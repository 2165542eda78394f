/**
 * The judge: an agent named in config that decides free-text stop conditions (rubrics). The
 * subtask asks it between steps; what it spends is booked to the subtask's budget.
 *
 *   rubrics + the answer so far ──judge agent, one task (JSON verdicts)──> { rubric: satisfied }
 * With no judge configured, nothing is asked and no rubric holds: the subtask says so in its notes.
 */
import { Context } from '@temporalio/activity';
import { z } from 'zod';
import type { Budget, Evidence, TaskSpec, Usage } from '../schemas';
import { ErrorType } from '../core/errors';
import { addUsage, usageOf } from '../core/money';
import type { AgentRegistry } from './agents/registry';
import { fatal } from './errors';

/** Input of `judgeRubrics`: the rubrics and the answer they are held against. */
export interface JudgeInput {
  taskId: string;
  question: string;
  rubrics: string[];
  summary: string;
  data?: unknown;
  evidence: Pick<Evidence, 'title' | 'url' | 'snippet'>[];
  budgetLeft: Budget;
  stepKey: string;
}

/** The judge's answer: which rubrics hold, why, and what it cost; `judge` null when none is configured. */
export interface JudgeOutput {
  judge: string | null;
  verdicts: Record<string, boolean>;
  reasons: Record<string, string>;
  usage: Usage;
}

/** What the judge must answer (its task's outputSchema). */
export const VERDICTS_SCHEMA = {
  type: 'object',
  required: ['verdicts'],
  properties: {
    verdicts: {
      type: 'array',
      items: {
        type: 'object',
        required: ['rubric', 'satisfied'],
        properties: { rubric: { type: 'string' }, satisfied: { type: 'boolean' }, why: { type: 'string' } },
      },
    },
  },
} as const;

const Verdicts = z.object({ verdicts: z.array(z.object({ rubric: z.string(), satisfied: z.boolean(), why: z.string().optional() })) });

/** Steps a judge may take to answer. */
const JUDGE_STEPS = 3;

/** The judge's question: the rubrics, the sub-question, and the answer so far (evidence cut short). */
export function judgeQuestion(input: JudgeInput): string {
  const evidence = input.evidence.slice(0, 20).map((e, i) => `[${i + 1}] ${e.title ?? e.url ?? ''} ${e.snippet.slice(0, 300)}`.trim());
  return [
    'Decide, for each rubric, whether the answer below satisfies it. Answer with JSON only: {"verdicts":[{"rubric":"<rubric as written>","satisfied":true|false,"why":"<one sentence>"}]}.',
    `Rubrics:\n${input.rubrics.map((r) => `- ${r}`).join('\n')}`,
    `Question: ${input.question}`,
    `Answer: ${input.summary}${input.data !== undefined ? `\nData: ${JSON.stringify(input.data).slice(0, 4000)}` : ''}`,
    ...(evidence.length ? [`Evidence:\n${evidence.join('\n')}`] : []),
  ].join('\n\n');
}

/** Creates the judge activity over the worker's agents. */
export function createJudgeActivities({ registry, judgeAgent }: { registry: AgentRegistry; judgeAgent?: string }) {
  return {
    /** Asks the configured judge which rubrics the answer satisfies. */
    async judgeRubrics(input: JudgeInput): Promise<JudgeOutput> {
      const none: JudgeOutput = { judge: null, verdicts: {}, reasons: {}, usage: usageOf({}) };
      if (!judgeAgent) return none;
      const def = registry.get(judgeAgent);
      if (!def) throw fatal(ErrorType.NoAgent, `the judge agent "${judgeAgent}" (DELEGATE_JUDGE_AGENT) is not registered`);
      const ctx = Context.current();
      const task: TaskSpec = {
        id: `${input.taskId}-judge`,
        question: judgeQuestion(input),
        outputSchema: VERDICTS_SCHEMA as unknown as Record<string, unknown>,
      };
      let usage = usageOf({});
      let state: unknown;
      let data: unknown;
      for (let step = 0; step < JUDGE_STEPS && data === undefined; step++) {
        const reply = await def.step({
          task,
          params: {},
          step,
          attempt: ctx.info.attempt,
          state,
          budgetLeft: input.budgetLeft,
          stepKey: `${input.stepKey}:judge#${step}`,
          sleep: (ms) => ctx.sleep(ms),
          signal: ctx.cancellationSignal,
        });
        usage = addUsage(usage, reply.usage ?? {});
        state = reply.state;
        if (reply.done) data = reply.data ?? null;
      }
      const parsed = Verdicts.safeParse(data);
      const verdicts: Record<string, boolean> = {};
      const reasons: Record<string, string> = {};
      if (parsed.success) {
        for (const v of parsed.data.verdicts) {
          // only the rubrics asked about count, matched as written (trimmed)
          const rubric = input.rubrics.find((r) => r.trim() === v.rubric.trim());
          if (rubric === undefined) continue;
          verdicts[rubric] = v.satisfied;
          if (v.why) reasons[rubric] = v.why.slice(0, 300);
        }
      }
      return { judge: def.manifest.id, verdicts, reasons, usage };
    },
  };
}
