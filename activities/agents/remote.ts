/** What HTTP and LLM agents share: env-expanded secrets, JSON-schema params, one POST with retry semantics. */
import { Ajv } from 'ajv';
import { z } from 'zod';
import type { AgentManifest } from '../../schemas';
import { AgentFatalError, AgentRetryableError } from '../errors';

const ajv = new Ajv({ allErrors: true, strict: false });

/** Replaces `${VAR}` with the environment's value (secrets stay out of the agents file). */
export function expandEnv(value: string, env: NodeJS.ProcessEnv): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => env[name] ?? '');
}

/** A params validator from an agent's declared JSON Schema. */
export function jsonSchemaParams(schema: Record<string, unknown>) {
  const validate = ajv.compile(schema);
  return z.custom<Record<string, unknown>>((v) => validate(v), { error: () => ajv.errorsText(validate.errors, { dataVar: 'params' }) });
}

/** The manifest of a configured remote agent. */
export function remoteManifest(
  kind: 'http' | 'llm',
  cfg: Pick<AgentManifest, 'id' | 'version' | 'description' | 'capabilities' | 'inputSchema' | 'outputSchema' | 'retry' | 'tools'> & { timeoutSeconds: number; maxSteps: number },
): AgentManifest {
  return {
    id: cfg.id,
    version: cfg.version,
    description: cfg.description,
    kind,
    capabilities: cfg.capabilities,
    inputSchema: cfg.inputSchema,
    ...(cfg.outputSchema ? { outputSchema: cfg.outputSchema } : {}),
    limits: { timeoutSeconds: cfg.timeoutSeconds, maxSteps: cfg.maxSteps },
    retry: cfg.retry,
    tools: cfg.tools,
  };
}

/** POSTs JSON and returns the body text: network errors, 5xx and 429 are retryable, other non-2xx final. */
export async function postJson(url: string, body: unknown, headers: Record<string, string>, signal: AbortSignal, what: string): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal });
  } catch (err) {
    throw new AgentRetryableError(`${what} unreachable at ${url}: ${(err as Error).message}`);
  }
  const text = await res.text();
  if (res.status >= 500 || res.status === 429) throw new AgentRetryableError(`${what} answered ${res.status}: ${text.slice(0, 300)}`);
  if (res.status >= 300) throw new AgentFatalError(`${what} answered ${res.status}: ${text.slice(0, 300)}`);
  return text;
}
