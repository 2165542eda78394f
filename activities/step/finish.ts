/**
 * A step's end after its agent answered: the breaker told, the spend settled (this attempt's and
 * the earlier ones' of the step), the output checked (its size, the task's output schema), the
 * step's audit line and event written, and the reply normalised into the step's output.
 *
 *   reply ──size ≤ MAX_STEP_OUTPUT_BYTES?──> schema (final: must satisfy; interim: noted) ──> step log, `subtask.step` ──> AgentStepOutput
 */
import { appendFileSync } from 'node:fs';
import type { AgentStepInput, AgentStepOutput } from '../../contracts/step';
import { ErrorType } from '../../core/errors';
import type { Usage } from '../../schemas';
import { spendAttributes, tagActiveSpan } from '../../telemetry/tracing';
import type { StepReply } from '../agents/types';
import { fatal } from '../errors';
import type { ThrottleWait } from '../provider-gate';
import { schemaThreads } from '../schema-thread';
import type { createStepStream } from '../step-stream';
import type { Tell } from './events';
import type { Preflight } from './gates';

/** Largest step output the host accepts (JSON bytes); keeps every result well under Temporal's 2 MiB payload cap. */
export const MAX_STEP_OUTPUT_BYTES = 256 * 1024;

/** What the end of a step needs besides its input, its preflight and the reply. */
export interface FinishContext {
  attempt: number;
  stream: ReturnType<typeof createStepStream>;
  tell: Tell;
  /** The step's provider waits, for its event and output. */
  waited: () => ThrottleWait | undefined;
  /** Append-only audit file of completed steps (`<stepKey>\t<attempt>`). */
  stepLogPath?: string;
}

/** The step's output from the agent's reply, once every check after the call passed. */
export async function finishStep(
  input: AgentStepInput,
  { guard, schema }: Preflight,
  reply: StepReply,
  { attempt, stream, tell, waited, stepLogPath }: FinishContext,
): Promise<AgentStepOutput> {
  if (guard) await guard.breaker.succeeded(guard.circuit);
  await stream.flush();
  // the step ran and spent: a refused output still carries its usage, so the subtask books it;
  // earlier attempts' spend (their last heartbeat's) is part of the step's
  const usage: Usage = stream.settle(reply.usage ?? {});
  tagActiveSpan(spendAttributes(usage));
  const size = Buffer.byteLength(JSON.stringify(reply) ?? '');
  if (size > MAX_STEP_OUTPUT_BYTES) {
    // a Temporal payload is capped at 2 MiB: refuse here, clearly, rather than fail the workflow later
    throw fatal(ErrorType.InvalidOutput, `step output of ${size} bytes exceeds the ${MAX_STEP_OUTPUT_BYTES}-byte limit`, attempt, {
      usage,
    });
  }
  // a final answer must satisfy the schema; an interim one is only checked, for "answer matches schema"
  let schemaValid: boolean | undefined;
  if (schema && (reply.done || reply.data !== undefined)) {
    const checked = await schemaThreads.validate(schema.schema, reply.data, schema.owner);
    // stopped at its bound: another answer would cost the same, so no re-prompt
    if (!checked.ok) throw fatal(ErrorType.InvalidOutput, checked.error, attempt, { usage, noReprompt: true });
    const why = checked.why;
    if (reply.done && why) throw fatal(ErrorType.InvalidOutput, `output does not satisfy outputSchema: ${why}`, attempt, { usage });
    schemaValid = !why;
  }
  if (stepLogPath) appendFileSync(stepLogPath, `${input.stepKey}\t${attempt}\n`);
  await tell({
    key: `step:${input.stepKey}`,
    type: 'subtask.step',
    data: {
      taskId: input.task.id,
      workflowId: input.stepKey.slice(0, input.stepKey.lastIndexOf('#')),
      agentId: input.agentId,
      step: input.step,
      attempt,
      done: reply.done,
      usage,
      ...(reply.tools?.length ? { tools: reply.tools } : {}),
      ...(waited() ? { throttled: waited() } : {}),
    },
  });
  return {
    done: reply.done,
    usage,
    summary: reply.summary ?? '',
    data: reply.data,
    confidence: Math.min(1, Math.max(0, reply.confidence ?? 0.5)),
    evidence: reply.evidence ?? [],
    citations: reply.citations ?? [],
    followUps: reply.followUps ?? [],
    channelsHit: reply.channelsHit ?? [],
    state: reply.state,
    attempt,
    ...(schemaValid !== undefined ? { schemaValid } : {}),
    ...(waited() ? { throttledMs: waited()!.waitMs } : {}),
    // a question is asked only by a step that is not done; its text and schema are bounded like any payload
    ...(reply.ask && !reply.done
      ? { ask: { question: String(reply.ask.question).slice(0, 10_000), answerSchema: reply.ask.answerSchema } }
      : {}),
  };
}
