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
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { AgentsFileSchema, HttpAgentConfigSchema, StepReplySchema, unusedProviders, type HttpAgentConfig } from '../../schemas';
import { AgentRetryableError } from '../errors';
import { createLlmAgent, type LlmAgentOptions } from './llm';
import { createA2aAgent } from './a2a';
import { netPolicyFromEnv } from '../net-policy';
import { expandEnv, jsonSchemaParams, parseReply, postJson, remoteManifest, serviceOf } from './remote';
import { pacedCall, type AgentDefinition, type StepReply } from './types';
import { versionIssues } from './versions';

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

/** Reads the HTTP and LLM agents from a JSON file (`{ "agents": [...] }`); throws naming the bad field. `llm` options go to every LLM agent (the worker's MCP pool). */
export function loadAgentsFile(
  path: string,
  env: NodeJS.ProcessEnv = process.env,
  llm: LlmAgentOptions = {},
  onWarning: (line: string) => void = (line) => console.warn(line),
): AgentDefinition[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read agents file ${path}: ${(err as Error).message}`);
  }
  const parsed = AgentsFileSchema.safeParse(raw);
  const issues = parsed.success
    ? versionIssues(parsed.data.agents).map((i) => ({ path: ['agents', i.index, 'version'], message: i.message }))
    : parsed.error.issues;
  if (!parsed.success || issues.length > 0) {
    const lines = issues.map((i) => `  ${fieldName(raw, i.path)}: ${i.message}`);
    throw new Error(`invalid agents file ${path}:\n${lines.join('\n')}`);
  }
  const { providers, agents } = parsed.data;
  for (const id of unusedProviders(providers, agents))
    onWarning(`agents file ${path}: provider "${id}" is named by no agent; its limits pace nothing`);
  const limitsOf = new Map(providers.map((p) => [p.id, p.limits]));
  return agents.map((a) => {
    const def =
      a.kind === 'llm'
        ? createLlmAgent(a, env, llm)
        : a.kind === 'a2a'
          ? createA2aAgent(a, { policy: netPolicyFromEnv(env) }, env)
          : createHttpAgent(a, env);
    // a providers entry's limits are the file's, not the agent's own
    const shared = a.account !== undefined ? limitsOf.get(a.account) : undefined;
    return shared && def.service
      ? { ...def, manifest: { ...def.manifest, provider: a.account }, service: { ...def.service, limits: shared } }
      : def;
  });
}

/** A field's path as a reader finds it: `agents[3] ("writer").limits.requestsPerMinute`. */
function fieldName(raw: unknown, path: PropertyKey[]): string {
  const [list, index, ...rest] = path;
  const entry = (raw as Record<string, unknown[]> | undefined)?.[String(list)]?.[index as number] as { id?: unknown } | undefined;
  if (typeof index !== 'number') return path.map(String).join('.');
  const id = typeof entry?.id === 'string' ? ` ("${entry.id.slice(0, 64)}")` : '';
  return [`${String(list)}[${index}]${id}`, ...rest.map(String)].join('.');
}
