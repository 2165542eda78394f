/**
 * What a request says about its caller beyond its body: the caller's W3C `traceparent` and
 * its parent session and current model (schemas/parent.ts). Read once per request and kept
 * for the handler's whole async run, so whichever entry point submits a job (REST, A2A, the
 * MCP endpoint in process) finds them without each passing them down.
 *
 *   preHandler: headers ──parse (400 on a malformed parent header)──> noteParent (model kept, running jobs told) ──> handler runs inside the context
 *   submit ──callerContext()──> the job's traceparent and its session's model
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PARENT_HEADERS, PARENT_META_KEYS, ParentRequestSchema, type ParentRequest } from '../schemas';
import { HttpProblem } from './errors';

/** The caller's context of one request. */
export interface CallerContext {
  /** The caller's own `traceparent` header, as sent (checked where it is used). */
  traceparent?: string;
  /** Its parent session and model, when it named a session. */
  parent?: ParentRequest;
}

const store = new AsyncLocalStorage<CallerContext>();

/** The context of the request being handled; undefined outside one (a test calling the service). */
export function callerContext(): CallerContext | undefined {
  return store.getStore();
}

/** Runs `fn` with what an MCP call's `_meta` says (over what the HTTP request's headers said). */
export function withCaller<T>(said: CallerContext, fn: () => Promise<T>): Promise<T> {
  if (!said.parent && !said.traceparent) return fn();
  return store.run({ ...store.getStore(), ...said }, fn);
}

/** What an MCP message's `_meta` says: its parent (PARENT_META_KEYS) and its `traceparent` (MCP's trace context key). */
export function callerOfMeta(meta: unknown): CallerContext {
  if (typeof meta !== 'object' || meta === null) return {};
  return callerIn(PARENT_META_KEYS, '_meta', (key) => (meta as Record<string, unknown>)[key]);
}

/** What a request's headers say: its `traceparent` and its parent (PARENT_HEADERS). */
function callerOfHeaders(headers: FastifyRequest['headers']): CallerContext {
  return callerIn(PARENT_HEADERS, 'headers', (name) => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  });
}

/** The context `get` reads, the parent under `keys`; a malformed parent is a 400 naming `${where}.<key>`. */
function callerIn(keys: Record<keyof ParentRequest, string>, where: string, get: (key: string) => unknown): CallerContext {
  const tp = get('traceparent');
  const parent = parentIn(keys, where, get);
  return { ...(typeof tp === 'string' ? { traceparent: tp } : {}), ...(parent ? { parent } : {}) };
}

/** The parent `get` reads under `keys`; undefined when it names none. */
function parentIn(keys: Record<keyof ParentRequest, string>, where: string, get: (key: string) => unknown): ParentRequest | undefined {
  const fields = Object.keys(keys) as (keyof ParentRequest)[];
  const given = Object.fromEntries(fields.map((f) => [f, get(keys[f])]).filter(([, v]) => v !== undefined));
  if (Object.keys(given).length === 0) return undefined;
  const parsed = ParentRequestSchema.safeParse(given);
  if (parsed.success) return parsed.data;
  const at = (f: keyof ParentRequest) => `${where}.${keys[f]}`;
  throw new HttpProblem(
    400,
    'Invalid request',
    `${at('model')} and ${at('maxOutputTokens')} need ${at('session')}, and each a well-formed value`,
    parsed.error.issues.map((i) => ({ path: at(fields.find((f) => f === i.path[0]) ?? 'session'), message: i.message })),
  );
}

/**
 * Installs the context: after authentication (the tenant is known), a request that names its
 * parent's model has it kept first (`noteParent`), so a job it submits, and every child started
 * after it answers, runs on that model.
 */
export function installCallerContext(app: FastifyInstance, noteParent: (tenant: string, parent: ParentRequest) => Promise<void>): void {
  app.addHook('preHandler', (req, _reply, done) => {
    let ctx: CallerContext;
    try {
      ctx = callerOfHeaders(req.headers);
    } catch (err) {
      done(err as Error);
      return;
    }
    const run = () => store.run(ctx, () => done());
    if (ctx.parent && req.tenant) noteParent(req.tenant, ctx.parent).then(run, done);
    else run();
  });
}
