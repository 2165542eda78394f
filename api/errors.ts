/**
 * One error module for the API: every error leaves as RFC 9457 problem+json. Zod issues
 * become field paths; Temporal errors map to 404/409/503; 5xx bodies never leak internals.
 */
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  isGrpcServiceError,
} from '@temporalio/client';
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ERROR_HTTP_STATUS, type ErrorType } from '../core/errors';

/** One failing field: where and why. */
export interface FieldError {
  path: string;
  message: string;
}

/** The problem+json body. */
export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number(),
    detail: z.string().optional(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Problem' });

/** The problem responses of the job, subtask and scout routes; a route overrides the statuses whose body says more. */
export const PROBLEM_RESPONSES = {
  400: ProblemSchema,
  401: ProblemSchema,
  404: ProblemSchema,
  409: ProblemSchema,
  415: ProblemSchema,
  422: ProblemSchema,
  429: ProblemSchema,
  503: ProblemSchema,
};

/** An error the routes throw to answer with a given status. */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail?: string,
    readonly errors?: FieldError[],
    /** Extra response headers (Retry-After, WWW-Authenticate). */
    readonly headers?: Record<string, string>,
    /** Extra members of the problem body (RFC 9457 extensions), e.g. what a cap has left. */
    readonly extensions?: Record<string, unknown>,
  ) {
    super(detail ?? title);
  }
}

/** `tasks.0.agent` style path → `tasks[0].agent`. */
export function formatPath(path: readonly PropertyKey[], root = ''): string {
  let out = root;
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out || '(root)';
}

const TYPES: Record<number, string> = {
  400: 'invalid-request',
  401: 'unauthorized',
  404: 'not-found',
  405: 'method-not-allowed',
  409: 'conflict',
  413: 'payload-too-large',
  415: 'unsupported-media-type',
  422: 'unprocessable',
  429: 'too-many-requests',
  503: 'unavailable',
};

/** Sends a problem+json answer. */
export function sendProblem(reply: FastifyReply, p: HttpProblem): FastifyReply {
  if (p.headers) reply.headers(p.headers);
  return reply
    .code(p.status)
    .type('application/problem+json')
    .send({
      type: `https://delegate.dev/problems/${TYPES[p.status] ?? (p.status >= 500 ? 'internal' : 'error')}`,
      title: p.title,
      status: p.status,
      ...(p.detail ? { detail: p.detail } : {}),
      ...(p.errors ? { errors: p.errors } : {}),
      ...p.extensions,
    });
}

/** Maps Temporal client errors to API problems; undefined when it is not one we know. */
export function fromTemporal(err: unknown, what = 'job'): HttpProblem | undefined {
  if (err instanceof WorkflowNotFoundError) return new HttpProblem(404, 'Not found', `no such ${what}`);
  if (err instanceof WorkflowExecutionAlreadyStartedError) return new HttpProblem(409, 'Conflict', `${what} already exists`);
  if (err instanceof WorkflowUpdateFailedError) {
    // validators refuse with a type from the one error vocabulary; its table gives the status
    const cause = err.cause as { message?: string; type?: string; details?: unknown[] } | undefined;
    const status = cause?.type ? ERROR_HTTP_STATUS[cause.type as ErrorType] : undefined;
    if (status)
      return new HttpProblem(
        status,
        status === 404 ? 'Not found' : status === 409 ? 'Conflict' : 'Update rejected',
        cause?.message ?? err.message,
        updateFieldErrors(cause?.details),
      );
    return new HttpProblem(409, 'Conflict', `${what} could not apply the update; retry`);
  }
  if (isGrpcServiceError(err)) {
    if (err.code === 5) return new HttpProblem(404, 'Not found', `no such ${what}`);
    if (err.code === 3) return new HttpProblem(400, 'Invalid request', 'the workflow service refused the request as invalid');
    if (err.code === 8)
      return new HttpProblem(429, 'Too many requests', 'the workflow service is rate limiting; retry', undefined, { 'retry-after': '5' });
    if (err.code === 14 || err.code === 4)
      return new HttpProblem(503, 'Temporal unavailable', 'the workflow service did not answer; retry');
    if (err.code === 9 && /completed|closed/i.test(err.details ?? ''))
      return new HttpProblem(409, 'Conflict', `${what} has already finished`);
  }
  return undefined;
}

/** A validator's field errors (its failure's details, paths inside the update's argument) as paths in the request body; undefined when it gave none. */
function updateFieldErrors(details: unknown[] | undefined): FieldError[] | undefined {
  const errors = (details ?? []).filter(
    (d): d is FieldError =>
      typeof d === 'object' && d !== null && typeof (d as FieldError).path === 'string' && typeof (d as FieldError).message === 'string',
  );
  return errors.length > 0 ? errors.map((e) => ({ path: `body.${e.path}`, message: e.message })) : undefined;
}

/** Fastify's `frameworkErrors` option: errors the router raises before any route (a bad URL encoding) as problems too. */
export function frameworkErrorAsProblem(err: FastifyError, _req: unknown, reply: FastifyReply): FastifyReply {
  const status = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 400;
  return sendProblem(reply, new HttpProblem(status, 'Bad request', err.message));
}

/** Installs the error and not-found handlers on the app. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setNotFoundHandler((req, reply) =>
    sendProblem(reply, new HttpProblem(404, 'Not found', `no route ${req.method} ${req.url.split('?')[0]}`)),
  );
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err instanceof HttpProblem) return sendProblem(reply, err);
    if (hasZodFastifySchemaValidationErrors(err)) {
      const where = err.validationContext ?? 'body';
      const errors = err.validation.map((v) => ({
        path: formatPath(
          v.instancePath
            .split('/')
            .filter(Boolean)
            .map((s) => (/^\d+$/.test(s) ? Number(s) : s)),
          where,
        ),
        message: v.message ?? 'invalid',
      }));
      return sendProblem(reply, new HttpProblem(400, 'Invalid request', `${errors.length} invalid field(s) in the ${where}`, errors));
    }
    if (isResponseSerializationError(err)) {
      req.log.error({ err, issues: err.cause.issues }, 'response did not match its schema');
      return sendProblem(reply, new HttpProblem(500, 'Internal error'));
    }
    const temporal = fromTemporal(err);
    if (temporal) return sendProblem(reply, temporal);
    const status = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status >= 500) {
      req.log.error({ err }, 'unhandled error');
      return sendProblem(reply, new HttpProblem(500, 'Internal error', 'the request failed; see the server log'));
    }
    return sendProblem(
      reply,
      new HttpProblem(status, err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ? 'Invalid JSON' : 'Bad request', err.message),
    );
  });
}
