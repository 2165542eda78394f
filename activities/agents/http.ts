/**
 * Agents served over HTTP. For each step Delegate POSTs the step request as JSON to the
 * agent's URL and expects a StepReply back:
 *
 *   worker ──POST {task, params, step, attempt, state, budgetLeft, stepKey, previous?}──> agent
 *          <──200 {done, usage, summary, data, confidence, evidence, ...}──────────────────
 *
 * 5xx, 429 and network errors are retried with the task's backoff; other 4xx are final;
 * a reply that is not a valid StepReply counts as an agent error.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { AgentsFileSchema, HttpAgentConfigSchema, StepReplySchema, type HttpAgentConfig } from '../../schemas';
import { AgentRetryableError } from '../errors';
import { createLlmAgent, type LlmAgentOptions } from './llm';
import { createA2aAgent } from './a2a';
import { netPolicyFromEnv } from '../net-policy';
import { expandEnv, jsonSchemaParams, parseReply, postJson, remoteManifest } from './remote';
import type { AgentDefinition, StepReply } from './types';

/** An agent definition that calls an HTTP service for each step. */
export function createHttpAgent(input: z.input<typeof HttpAgentConfigSchema>, env: NodeJS.ProcessEnv = process.env): AgentDefinition {
  const cfg: HttpAgentConfig = HttpAgentConfigSchema.parse(input);
  const headers = Object.fromEntries(Object.entries(cfg.headers).map(([k, v]) => [k, expandEnv(v, env)]));
  return {
    manifest: remoteManifest('http', cfg),
    params: jsonSchemaParams(cfg.inputSchema),
    toolsFor: () => cfg.tools,
    async step(req): Promise<StepReply> {
      const { sleep: _sleep, signal, progress: _progress, ...body } = req;
      const reply = await postJson(cfg.url, body, { 'delegate-step-key': req.stepKey, ...headers }, signal, `agent ${cfg.id}`);
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

/** Reads the HTTP and LLM agents from a JSON file (`{ "agents": [...] }`); throws naming the bad field. `llm` options go to every LLM agent (the worker's MCP pool). */
export function loadAgentsFile(path: string, env: NodeJS.ProcessEnv = process.env, llm: LlmAgentOptions = {}): AgentDefinition[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read agents file ${path}: ${(err as Error).message}`);
  }
  const parsed = AgentsFileSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid agents file ${path}:\n${lines.join('\n')}`);
  }
  return parsed.data.agents.map((a) =>
    a.kind === 'llm'
      ? createLlmAgent(a, env, llm)
      : a.kind === 'a2a'
        ? createA2aAgent(a, { policy: netPolicyFromEnv(env) }, env)
        : createHttpAgent(a, env),
  );
}
