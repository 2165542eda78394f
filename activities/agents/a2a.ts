/**
 * Agents that speak A2A 1.0 (`kind: "a2a"` in the agents file). A step sends the task's question
 * and context as one A2A message, streaming when the card says so, and maps the remote task:
 *
 *   step ──message (id from the step key)──> remote agent
 *        <── working (status updates: step progress events on the job's stream)
 *        <── completed (artifacts: the step's data) | input-required (partial: the question as a follow-up;
 *            with allowQuestions: an ask, the subtask waits in the inbox, and the next step sends the answer
 *            as the next message of the same remote task and context, which then goes on)
 *            | auth-required / rejected / failed (final failures) | canceled (cancelled)
 *   step cancelled (job cancel, stop by latency, budget halt) ──CancelTask──> remote agent
 *
 * Cost (activities/a2a-cost.ts): every message carries what the subtask has left to spend in its metadata, and
 * a spend the remote reports in the task's metadata is what the step books (else the configured price).
 *
 * A retried step sends the same message id (it derives from the step key), so a remote agent
 * that deduplicates by message id (as the spec allows) does not start a second task.
 */
import { Role, TaskState, type Message } from '@a2a-js/sdk';
import { z } from 'zod';
import { A2aAgentConfigSchema, type A2aAgentConfig } from '../../schemas';
import { dataPart, textPart } from '../a2a-task';
import { AgentCancelledError, AgentFatalError, AgentRetryableError, AgentThrottledError } from '../errors';
import type { Resolver } from '../guarded-post';
import type { NetPolicy } from '../net-policy';
import { budgetMetadata, COST_EXTENSION_URI } from '../a2a-cost';
import { createA2aRemote, fetchFailure } from './a2a-client';
import { dataOf, Seen, textOf } from './a2a-seen';
import { expandEnv, jsonSchemaParams, remoteManifest, serviceOf } from './remote';
import { pacedCall, type AgentDefinition, type StepReply, type StepRequest } from './types';

/** What the host gives an `a2a` agent besides its config. */
export interface A2aAgentDeps {
  /** Where the card and the interface may be reached (the webhook policy of the worker). */
  policy: NetPolicy;
  resolve?: Resolver;
}

/** What a step carries to the next one. */
interface A2aState {
  remoteTaskId?: string;
  remoteContextId?: string;
  /** Set after input-required: the next step ends the task (partial) instead of calling again. */
  inputRequired?: string;
  /** Set after input-required with allowQuestions: the question asked; the next step sends its answer. */
  asked?: string;
  /** The spend the remote task reported so far (the cost extension): the next step of the same task books only what it adds. */
  reported?: { costUsd?: number; tokens?: number };
}

/** The answer to the remote's question as the next message of its task: text (JSON unless a string), and the data when structured. */
function answerMessage(req: StepRequest, carried: A2aState): Message {
  const a = req.answer!.answer;
  return {
    messageId: `delegate:${req.stepKey}`,
    contextId: carried.remoteContextId ?? '',
    taskId: carried.remoteTaskId ?? '',
    role: Role.ROLE_USER,
    parts: [textPart(typeof a === 'string' ? a : JSON.stringify(a)), ...(a !== null && typeof a === 'object' ? [dataPart(a)] : [])],
    metadata: metadataOf(req, {}),
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The job's trace context for the remote agent: in the message's metadata too, since a header may not reach the agent behind a gateway. */
function traceOf(req: StepRequest): { traceparent?: string } {
  return req.traceparent ? { traceparent: req.traceparent } : {};
}

/** A message's metadata: `own`, the job's trace, and the budget the subtask has left (the cost extension); undefined when empty. */
function metadataOf(req: StepRequest, own: Record<string, unknown>): Record<string, unknown> | undefined {
  const m = { ...own, ...traceOf(req), ...budgetMetadata(req.budgetLeft) };
  return Object.keys(m).length ? m : undefined;
}

/** The message a step sends: the question as text, its context as a data part. */
function stepMessage(req: StepRequest, skill: string | undefined): Message {
  const t = req.task;
  const context = {
    ...(t.rationale ? { rationale: t.rationale } : {}),
    ...(t.contextSeed?.length ? { contextSeed: t.contextSeed } : {}),
    ...(t.constraints?.length ? { constraints: t.constraints } : {}),
    ...(t.stopConditions?.length ? { stopConditions: t.stopConditions } : {}),
    ...(Object.keys(req.params).length ? { params: req.params } : {}),
    ...(req.previous ? { previous: req.previous } : {}),
    ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
  };
  return {
    messageId: `delegate:${req.stepKey}${req.reprompt ? ':reprompt' : ''}`,
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [
      textPart(req.reprompt ? `${t.question}\n\n${req.reprompt}` : t.question),
      ...(Object.keys(context).length ? [dataPart(context)] : []),
    ],
    metadata: metadataOf(req, skill ? { skill } : {}),
    extensions: [],
    referenceTaskIds: [],
  };
}

/** An RPC's failure as the step reports it: 5xx, 429 and network errors may pass; auth and other refusals are final. */
function rpcFailure(err: unknown, what: string): Error {
  const msg = err instanceof Error ? err.message : String(err);
  const status = /Status: (\d{3})|stream for \w+: (\d{3})/.exec(msg);
  const code = Number(status?.[1] ?? status?.[2] ?? 0);
  if (code === 401 || code === 403) return new AgentFatalError(`${what} refused the credentials (${code})`);
  if (code >= 500 || code === 429) return new AgentRetryableError(`${what} answered ${code}`);
  if (code) return new AgentFatalError(`${what} answered ${code}`);
  if ((err as { reason?: string }).reason)
    return new AgentFatalError(`${what} answered an A2A error (${(err as { reason: string }).reason})`);
  return fetchFailure(err, what);
}

/** An agent definition that hands each step to a remote A2A agent. */
export function createA2aAgent(
  input: z.input<typeof A2aAgentConfigSchema>,
  deps: A2aAgentDeps,
  env: NodeJS.ProcessEnv = process.env,
): AgentDefinition {
  const cfg: A2aAgentConfig = A2aAgentConfigSchema.parse(input);
  const headers = Object.fromEntries(Object.entries(cfg.headers).map(([k, v]) => [k, expandEnv(v, env)]));
  const remote = createA2aRemote({
    id: cfg.id,
    cardUrl: cfg.cardUrl,
    skill: cfg.skill,
    headers,
    policy: deps.policy,
    resolve: deps.resolve,
  });
  const what = `agent ${cfg.id}`;
  return {
    service: serviceOf(cfg),
    manifest: remoteManifest('a2a', { ...cfg, tools: [] }),
    params: jsonSchemaParams(cfg.inputSchema),
    toolsFor: () => [],
    async step(req): Promise<StepReply> {
      const carried = (req.state ?? {}) as A2aState;
      if (carried.inputRequired) throw new AgentFatalError(`${what} asks for input: ${carried.inputRequired.slice(0, 500)}`);
      if (carried.asked && !req.answer) throw new AgentFatalError(`${what} asks for input: ${carried.asked.slice(0, 500)}`);
      // one send through the provider's gate: a throttled one waits and goes again (same message id: the remote dedups)
      return pacedCall(req, () => send(req, carried));
    },
  };

  /** Sends the step's message and follows the remote task to the step's reply. */
  async function send(req: StepRequest, carried: A2aState): Promise<StepReply> {
    const { client, streaming } = await remote();
    const seen = new Seen();
    const message = carried.asked ? answerMessage(req, carried) : stepMessage(req, cfg.skill);
    const params = { tenant: '', message, configuration: undefined, metadata: undefined };
    // the job's trace as the `traceparent` header of every call of this step
    // and the cost extension activated (A2A-Extensions): an agent that does not know it ignores both
    const serviceParameters = { 'A2A-Extensions': COST_EXTENSION_URI, ...(req.traceparent ? { traceparent: req.traceparent } : {}) };
    const options = { signal: req.signal, serviceParameters };
    try {
      if (streaming) {
        for await (const ev of client.sendMessageStream(params, options)) {
          const working = seen.take(ev);
          if (working !== undefined) await req.progress?.({ state: 'working', text: working.slice(0, 2000) });
          if (seen.over) break;
        }
      } else {
        const r = await client.sendMessage(params, options);
        if ('role' in r) seen.take({ payload: { $case: 'message', value: r } });
        else seen.task(r);
        // a blocking agent that answers before the task ends: ask again until it does
        while (!seen.over && seen.taskId) {
          await req.sleep(1000);
          seen.task(await client.getTask({ tenant: '', id: seen.taskId }, options));
        }
      }
    } catch (err) {
      if (req.signal.aborted) {
        // the step was cancelled (job cancel, latency cut, budget halt): so is the remote task
        if (seen.taskId)
          await client
            .cancelTask({ tenant: '', id: seen.taskId, metadata: undefined }, { signal: AbortSignal.timeout(5000) })
            .catch(() => undefined);
        throw err;
      }
      const throttled = throttleIn(err);
      if (throttled) throw throttled;
      throw rpcFailure(err, what);
    }
    return outcome(seen, cfg, what, req.task.allowQuestions === true, carried.remoteTaskId === seen.taskId ? carried.reported : undefined);
  }
}

/** The throttle behind an SDK error (the transport's fetch threw it; the SDK may wrap it as a cause). */
function throttleIn(err: unknown): AgentThrottledError | undefined {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++)
    if (e instanceof AgentThrottledError) return e;
  return undefined;
}

/** The step's reply from the remote task's last state. */
function outcome(seen: Seen, cfg: A2aAgentConfig, what: string, allowQuestions: boolean, before?: A2aState['reported']): StepReply {
  const said = textOf(seen.message?.parts);
  // what the remote reported its task spent (the cost extension), less what an earlier step of it booked; else the configured price
  const r = seen.reported;
  const usage = r
    ? {
        ...r,
        costUsd: r.costUsd === undefined ? cfg.pricing.perTaskUsd : Math.max(0, r.costUsd - (before?.costUsd ?? 0)),
        ...(r.tokens !== undefined ? { tokens: Math.max(0, r.tokens - (before?.tokens ?? 0)) } : {}),
      }
    : { costUsd: cfg.pricing.perTaskUsd };
  const reported = r ? { reported: { costUsd: r.costUsd, tokens: r.tokens } } : {};
  const state: A2aState = seen.taskId
    ? { remoteTaskId: seen.taskId, ...(seen.contextId ? { remoteContextId: seen.contextId } : {}), ...reported }
    : {};
  const parts = seen.state === TaskState.TASK_STATE_COMPLETED && seen.artifacts.size === 0 ? (seen.message?.parts ?? []) : seen.parts;
  const data = dataOf(parts);
  const found = { ...(data.length ? { data: data.length === 1 ? data[0] : data } : {}) };
  switch (seen.state) {
    case TaskState.TASK_STATE_COMPLETED:
      return { done: true, usage, summary: textOf(parts) || said || 'completed', ...found, state };
    case TaskState.TASK_STATE_INPUT_REQUIRED: {
      const question = said || 'the remote agent asks for more input';
      // the parent (or a human) answers in the inbox; the next step sends the answer to the same remote task
      if (allowQuestions && seen.taskId)
        return { done: false, usage, summary: `asks: ${question}`, ...found, ask: { question }, state: { ...state, asked: question } };
      return {
        done: false,
        usage,
        summary: `asks: ${question}`,
        ...found,
        followUps: [question],
        state: { ...state, inputRequired: question },
      };
    }
    case TaskState.TASK_STATE_AUTH_REQUIRED:
      throw new AgentFatalError(`${what} requires authentication${said ? `: ${said.slice(0, 300)}` : ''}`);
    case TaskState.TASK_STATE_REJECTED:
      throw new AgentFatalError(`${what} rejected the task${said ? `: ${said.slice(0, 300)}` : ''}`);
    case TaskState.TASK_STATE_FAILED:
      // terminal: the same message id would reach the same failed task, so no retry
      throw new AgentFatalError(`${what} failed the task${said ? `: ${said.slice(0, 300)}` : ''}`);
    case TaskState.TASK_STATE_CANCELED:
      throw new AgentCancelledError(`${what} canceled the task${said ? `: ${said.slice(0, 300)}` : ''}`);
    default:
      // the stream ended before the task did: another attempt (same message id) picks it up again
      throw new AgentRetryableError(`${what}: the stream ended before the task did (state ${seen.state ?? 'none'})`);
  }
}
