/** What HTTP and LLM agents share: env-expanded secrets, JSON-schema params, one POST with retry semantics. */
import { Ajv } from 'ajv';
import { z } from 'zod';
import { createHash } from 'node:crypto';
import { agentKeyOf, providerOf, type AgentConfig, type AgentManifest, type ProviderLimits } from '../../schemas';
import type { AgentService } from './types';
import { AgentFatalError, AgentRetryableError, AgentThrottledError } from '../errors';
import { isThrottleStatus, retryAfterMs } from '../throttle';
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
    'id' | 'version' | 'deprecated' | 'description' | 'capabilities' | 'inputSchema' | 'outputSchema' | 'retry' | 'tools' | 'pool'
  > & { timeoutSeconds: number; maxSteps: number; account?: string; limits?: ProviderLimits },
): AgentManifest {
  return {
    id: cfg.id,
    version: cfg.version,
    ...(cfg.deprecated ? { deprecated: cfg.deprecated } : {}),
    description: cfg.description,
    kind,
    capabilities: cfg.capabilities,
    inputSchema: cfg.inputSchema,
    ...(cfg.outputSchema ? { outputSchema: cfg.outputSchema } : {}),
    limits: { timeoutSeconds: cfg.timeoutSeconds, maxSteps: cfg.maxSteps },
    retry: cfg.retry,
    tools: cfg.tools,
    ...(cfg.pool ? { pool: cfg.pool } : {}),
    // its own declared limits pace the agent's steps on a queue of its own (an account's: the agents file sets it with the limits)
    ...(cfg.limits && cfg.account === undefined ? { provider: cfg.id } : {}),
  };
}

/**
 * Whom an agent's calls go to, for its provider gate: the declared provider (its limits filled in by
 * the agents file's entry), else the agent's own limits, else its key (hashed: it may hold a literal
 * API key), which agents on one key share.
 */
export function serviceOf(cfg: AgentConfig): AgentService {
  const provider = providerOf(cfg);
  if (provider !== undefined) return { key: `provider:${provider}`, label: provider, ...(cfg.limits ? { limits: cfg.limits } : {}) };
  return { key: `key:${createHash('sha256').update(agentKeyOf(cfg)).digest('hex').slice(0, 16)}`, label: cfg.id };
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
 * POSTs JSON and returns the reply: 429 (and 503 with Retry-After) is throttling, network errors and
 * 5xx are retryable, other non-2xx final.
 * Messages name `what` (the agent) and the status only: the URL, its query and the upstream
 * body (which may echo a key) never reach results, histories or logs.
 */
export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  signal: AbortSignal,
  what: string,
  onResponse?: (headers: Headers) => void,
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
  onResponse?.(res.headers);
  const contentType = (res.headers.get('content-type') ?? 'none').split(';')[0].trim().slice(0, 100);
  throwIfThrottled(res, what);
  if (res.status >= 500) throw new AgentRetryableError(`${what} answered ${res.status}`);
  if (res.status >= 300) throw new AgentFatalError(`${what} answered ${res.status}`);
  return { text, contentType };
}

/** A 429 (or a 503 with Retry-After) as back-pressure, with the wait the service asked for. */
export function throwIfThrottled(res: Pick<Response, 'status' | 'headers'>, what: string): void {
  const wait = retryAfterMs(res.headers, Date.now());
  const throttle = isThrottleStatus(res.status, { hasRetryAfter: wait !== undefined });
  if (throttle) throw new AgentThrottledError(`${what} answered ${res.status} (${throttle.reason})`, throttle.reason, wait);
}

/** Parses a reply as JSON; a reply that is not JSON is described by its length and content type, never quoted. */
export function parseReply(reply: RemoteReply, what: string): unknown {
  try {
    return JSON.parse(reply.text);
  } catch {
    throw new AgentRetryableError(`${what} answered non-JSON (${reply.contentType}, ${reply.text.length} characters)`);
  }
}
