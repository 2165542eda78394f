/**
 * Humans and parents in an LLM agent's conversation: the `ask_parent` host tool a task that
 * allows questions offers (calling it ends the step with an `ask`; the subtask waits for the
 * answer in the inbox), and the user turn that hands the next step the answer and any steering
 * messages the subtask received meanwhile.
 *
 *   step n:   model ──ask_parent {question, answerSchema?}──> checked ──> StepReply.ask (state.askedCall)
 *   (the subtask waits: POST /v1/approvals/:id answers)
 *   step n+1: tool result for the ask ──> user turn "The parent answered …" + "Message from …" ──> model
 */
import { AskSchema } from '../../schemas';
import type { ChatMessage, ToolDef } from './llm-provider';
import type { StepAnswer, StepAsk, SteeringNote } from '../../contracts/step';

/** The host tool a task with `allowQuestions` offers its LLM agent. */
export const ASK_PARENT = 'ask_parent';

/** How the model sees `ask_parent`. */
export const ASK_PARENT_DEF: ToolDef = {
  type: 'function',
  function: {
    name: ASK_PARENT,
    description:
      'Ask whoever delegated this task (your parent, or a human) a question you cannot answer yourself. Your turn ends; the answer comes back as a user message. Ask only for a fact or a decision you lack.',
    parameters: {
      type: 'object',
      properties: {
        question: { type: 'string', description: 'the question, complete in itself' },
        answerSchema: { type: 'object', description: 'optional JSON Schema the answer must satisfy (e.g. an enum of choices)' },
      },
      required: ['question'],
    },
  },
};

/** The question an `ask_parent` call makes, or why the host refuses it (the model is told, and may ask again). */
export function askOf(args: unknown): { ask: StepAsk } | { error: string } {
  const parsed = AskSchema.safeParse(args);
  if (parsed.success) return { ask: parsed.data };
  const why = parsed.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; ');
  return { error: `error: ${ASK_PARENT} refused (${why.slice(0, 1000)}); give {"question": "…", "answerSchema"?: {…}}` };
}

/** What the step state keeps of a question asked: the call its answer completes. */
export interface AskedState {
  askedCall?: string;
}

/**
 * The turns the next step starts with: the result of the `ask_parent` call (a model API wants one
 * for every call), then one user turn with the answer and the steering messages, if any.
 */
export function humanTurns(asked: string | undefined, answer: StepAnswer | undefined, notes: SteeringNote[] | undefined): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (asked)
    out.push({
      role: 'tool',
      tool_call_id: asked,
      content: answer ? 'The question was answered: the answer follows as a message.' : 'The question was not answered.',
    });
  const lines: string[] = [];
  if (answer)
    lines.push(
      `The parent answered your question ("${answer.question.slice(0, 500)}"): ${JSON.stringify(answer.answer).slice(0, 10_000)}${answer.note ? `\nNote: ${answer.note.slice(0, 1000)}` : ''}`,
    );
  for (const m of notes ?? []) lines.push(`Message from ${m.from ?? 'the parent'}: ${m.text}`);
  if (lines.length) out.push({ role: 'user', content: lines.join('\n\n') });
  return out;
}
