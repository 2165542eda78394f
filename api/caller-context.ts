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
  const m = meta as Record<string, unknown>;
  const parent = parentOfMeta(m);
  return { ...(typeof m.traceparent === 'string' ? { traceparent: m.traceparent } : {}), ...(parent ? { parent } : {}) };
}

/** A parent from its three values; throws a 400 naming `where` the field at fault. */
function parentOf(values: Record<keyof ParentRequest, unknown>, where: Record<keyof ParentRequest, string>): ParentRequest | undefined {
  const given = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
  if (Object.keys(given).length === 0) return undefined;
  const parsed = ParentRequestSchema.safeParse(given);
  if (parsed.success) return parsed.data;
  throw new HttpProblem(
    400,
    'Invalid request',
    `${where.model} and ${where.maxOutputTokens} need ${where.session}, and each a well-formed value`,
    parsed.error.issues.map((i) => ({ path: where[i.path[0] as keyof ParentRequest] ?? where.session, message: i.message })),
  );
}

/** The parent a request's headers name. */
export function parentOfHeaders(headers: FastifyRequest['headers']): ParentRequest | undefined {
  const one = (name: string) => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const where = {
    session: `headers.${PARENT_HEADERS.session}`,
    model: `headers.${PARENT_HEADERS.model}`,
    maxOutputTokens: `headers.${PARENT_HEADERS.maxOutputTokens}`,
  };
  return parentOf(
    { session: one(PARENT_HEADERS.session), model: one(PARENT_HEADERS.model), maxOutputTokens: one(PARENT_HEADERS.maxOutputTokens) },
    where,
  );
}

/** The parent an MCP request's `_meta` names. */
export function parentOfMeta(meta: Record<string, unknown> | undefined): ParentRequest | undefined {
  if (!meta) return undefined;
  const where = {
    session: `_meta.${PARENT_META_KEYS.session}`,
    model: `_meta.${PARENT_META_KEYS.model}`,
    maxOutputTokens: `_meta.${PARENT_META_KEYS.maxOutputTokens}`,
  };
  return parentOf(
    {
      session: meta[PARENT_META_KEYS.session],
      model: meta[PARENT_META_KEYS.model],
      maxOutputTokens: meta[PARENT_META_KEYS.maxOutputTokens],
    },
    where,
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
      const tp = req.headers.traceparent;
      const parent = parentOfHeaders(req.headers);
      ctx = { ...(typeof tp === 'string' ? { traceparent: tp } : {}), ...(parent ? { parent } : {}) };
    } catch (err) {
      done(err as Error);
      return;
    }
    const run = () => store.run(ctx, () => done());
    if (ctx.parent && req.tenant && (ctx.parent.model || ctx.parent.maxOutputTokens)) noteParent(req.tenant, ctx.parent).then(run, done);
    else run();
  });
}
