/**
 * One example per operation of the OpenAPI document (its request body, its success answers;
 * a problem+json for each error answer), the success ones typed against the schemas so an example that drifts from them fails to compile.
 * Attached to the document by operationId after the zod transform, so the routes keep their
 * schemas as they are and the examples live in one table, put together here from one module per area.
 *
 *   jobs.ts, scouts.ts, research.ts, reports-and-approvals.ts, agents-and-system.ts ──> OPENAPI_EXAMPLES
 *   swagger transformObject ──> document ──withExamples──> paths[…][op].requestBody/responses[…].content['application/json'].example
 */
import { AGENT_AND_SYSTEM_EXAMPLES } from './agents-and-system';
import type { OperationExamples } from './common';
import { JOB_EXAMPLES } from './jobs';
import { REPORT_AND_APPROVAL_EXAMPLES } from './reports-and-approvals';
import { RESEARCH_EXAMPLES } from './research';
import { SCOUT_EXAMPLES } from './scouts';

export type { OperationExamples } from './common';

/** The examples, by operationId. */
export const OPENAPI_EXAMPLES: Record<string, OperationExamples> = {
  ...JOB_EXAMPLES,
  ...SCOUT_EXAMPLES,
  ...AGENT_AND_SYSTEM_EXAMPLES,
  ...RESEARCH_EXAMPLES,
  ...REPORT_AND_APPROVAL_EXAMPLES,
};

/** Problem titles by status, for the error answers' examples. */
const PROBLEMS: Record<string, [title: string, detail: string]> = {
  400: ['Invalid request', '1 invalid field(s) in the body'],
  401: ['Unauthorized', 'send Authorization: Bearer <key>'],
  404: ['Not found', 'no job "compare-dbs-1"'],
  409: ['Conflict', 'job "compare-dbs-1" already exists with another spec, or has already finished'],
  410: ['Gone', 'this approval link has expired'],
  415: ['Unsupported media type', 'POST routes take application/json'],
  422: ['Unprocessable', 'no agent has capability "research"'],
  429: ['Too many requests', 'at most 100 requests a minute; retry after 12 s'],
  503: ['Temporal unavailable', 'the workflow service did not answer; retry'],
};

/** A problem+json example for an error status. */
function problemExample(status: string) {
  const [title, detail] = PROBLEMS[status] ?? ['Error', 'the request failed'];
  const slug = title.toLowerCase().replace(/ /g, '-');
  return {
    type: `https://delegate.dev/problems/${status === '503' ? 'unavailable' : slug}`,
    title,
    status: Number(status),
    detail,
    ...(status === '400' ? { errors: [{ path: 'body.tasks[0].agent', message: 'a task needs an agent or a job' }] } : {}),
  };
}

type Doc = { paths?: Record<string, Record<string, { operationId?: string; requestBody?: Media; responses?: Record<string, Media> }>> };
type Media = { content?: Record<string, { example?: unknown }> };

/** Wraps swagger's `transformObject`: the document it builds, with each operation's examples attached. */
export function withExamples<I, O>(transformObject: (input: I) => O): (input: I) => O {
  return (input) => {
    const doc = transformObject(input) as Doc;
    for (const ops of Object.values(doc.paths ?? {})) {
      for (const op of Object.values(ops)) {
        const ex = op.operationId ? OPENAPI_EXAMPLES[op.operationId] : undefined;
        if (!ex) continue;
        const body = op.requestBody?.content?.['application/json'];
        if (body && ex.request !== undefined) body.example = ex.request;
        for (const [status, res] of Object.entries(op.responses ?? {})) {
          const media = res.content?.['application/json'] ?? res.content?.['application/problem+json'];
          const value = ex.responses[status] ?? (Number(status) >= 400 ? problemExample(status) : undefined);
          if (media && value !== undefined) media.example = value;
        }
      }
    }
    return doc as O;
  };
}
