/** What HTTP and LLM agents share: env-expanded secrets, JSON-schema params, one POST with retry semantics. */
import { Ajv } from 'ajv';
import { z } from 'zod';
import type { AgentManifest } from '../../schemas';
import { AgentFatalError, AgentRetryableError } from '../errors';
import { startHttpCall } from '../../telemetry/tracing';

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
  kind: 'http' | 'llm' | 'a2a',
  cfg: Pick<
    AgentManifest,
    'id' | 'version' | 'description' | 'capabilities' | 'inputSchema' | 'outputSchema' | 'retry' | 'tools' | 'pool'
  > & { timeoutSeconds: number; maxSteps: number },
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
    ...(cfg.pool ? { pool: cfg.pool } : {}),
  };
}

/** A reply of a remote agent: its text and content type (callers report a bad reply by these, never by its text). */
export interface RemoteReply {
  text: string;
  contentType: string;
}

/** How a failed fetch is reported: the error code only (its message may name the host, its cause the URL). */
function networkCode(err: unknown): string {
  const e = err as { name?: string; cause?: { code?: string; name?: string } };
  if (e.name === 'AbortError' || e.name === 'TimeoutError') return e.name;
  return e.cause?.code ?? e.cause?.name ?? e.name ?? 'error';
}

/**
 * POSTs JSON and returns the reply: network errors, 5xx and 429 are retryable, other non-2xx final.
 * Messages name `what` (the agent) and the status only: the URL, its query and the upstream
 * body (which may echo a key) never reach results, histories or logs.
 */
export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  signal: AbortSignal,
  what: string,
): Promise<RemoteReply> {
  let res: Response;
  // a client span under the step's, and its traceparent for the agent
  const call = startHttpCall('POST', url, what);
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers, ...call.headers },
      body: JSON.stringify(body),
      signal,
      redirect: 'manual',
    });
  } catch (err) {
    call.end(undefined, err);
    throw new AgentRetryableError(`${what} unreachable (${networkCode(err)})`);
  }
  const text = await res.text().catch(() => '');
  call.end(res.status);
  const contentType = (res.headers.get('content-type') ?? 'none').split(';')[0].trim().slice(0, 100);
  if (res.status >= 500 || res.status === 429) throw new AgentRetryableError(`${what} answered ${res.status}`);
  if (res.status >= 300) throw new AgentFatalError(`${what} answered ${res.status}`);
  return { text, contentType };
}

/** Parses a reply as JSON; a reply that is not JSON is described by its length and content type, never quoted. */
export function parseReply(reply: RemoteReply, what: string): unknown {
  try {
    return JSON.parse(reply.text);
  } catch {
    throw new AgentRetryableError(`${what} answered non-JSON (${reply.contentType}, ${reply.text.length} characters)`);
  }
}
