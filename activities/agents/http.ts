/**
 * Agents served over HTTP. For each step Delegate POSTs the step request as JSON to the
 * agent's URL and expects a StepReply back:
 *
 *   worker ──POST {task, params, step, attempt, state, budgetLeft, stepKey, previous?, answer?}, header traceparent──> agent
 *          <──200 {done, usage, summary, data, confidence, evidence, ..., ask?}────────────────────
 *
 * A reply with `ask` (and `done: false`) is a question for the parent: the subtask waits for
 * the answer in the inbox, and the next step's request carries it as `answer`.
 * 429 (and 503 with Retry-After) is throttling: the step waits as asked and calls again, using no
 * attempt; 5xx and network errors are retried with the task's backoff; other 4xx are final;
 * a reply that is not a valid StepReply counts as an agent error.
 */
import { z } from 'zod';
import { HttpAgentConfigSchema, StepReplySchema, type HttpAgentConfig } from '../../schemas';
import { AgentRetryableError } from '../errors';
import { expandEnv, jsonSchemaParams, parseReply, postJson, remoteManifest, serviceOf } from './remote';
import { pacedCall, type AgentDefinition, type StepReply } from './types';

/** An agent definition that calls an HTTP service for each step. */
export function createHttpAgent(input: z.input<typeof HttpAgentConfigSchema>, env: NodeJS.ProcessEnv = process.env): AgentDefinition {
  const cfg: HttpAgentConfig = HttpAgentConfigSchema.parse(input);
  const headers = Object.fromEntries(Object.entries(cfg.headers).map(([k, v]) => [k, expandEnv(v, env)]));
  return {
    service: serviceOf(cfg),
    manifest: remoteManifest('http', cfg),
    params: jsonSchemaParams(cfg.inputSchema),
    toolsFor: () => cfg.tools,
    async step(req): Promise<StepReply> {
      const { sleep: _sleep, signal, progress: _progress, paced: _paced, observeHeaders, traceparent, ...body } = req;
      // the job's trace as a header, the W3C way (a traced worker's client span replaces it with its own, in the same trace)
      const traced: Record<string, string> = traceparent ? { traceparent } : {};
      // a throttled call (429, 503 with Retry-After) waits in the provider's gate and goes again
      const reply = await pacedCall(req, () =>
        postJson(cfg.url, body, { 'delegate-step-key': req.stepKey, ...headers, ...traced }, signal, `agent ${cfg.id}`, observeHeaders),
      );
      const json = parseReply(reply, `agent ${cfg.id}`);
      const parsed = StepReplySchema.safeParse(json);
      if (!parsed.success) {
        const why = parsed.error.issues.map((i) => `${i.path.join('.') || '(reply)'}: ${i.message}`).join('; ');
        throw new AgentRetryableError(`agent ${cfg.id} sent an invalid step reply: ${why}`);
      }
      return parsed.data;
    },
  };
}
