/**
 * The client's errors: a refusal or failure the API answered (RFC 9457 problem details,
 * field paths included), a network failure that outlasted the retries, a wait that ran out.
 */
import type { JobView } from './types';

/** One failing field of a refused request: where (`body.tasks[0].question`) and why. */
export interface ProblemField {
  path: string;
  message: string;
}

/** An RFC 9457 problem+json body as the API sends it. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  errors?: ProblemField[];
}

/** The API answered with an error status; `problem` is its body (or one made up from the status when the body was not problem+json). */
export class DelegateProblemError extends Error {
  override readonly name = 'DelegateProblemError';
  readonly status: number;
  readonly title: string;
  readonly type: string;
  readonly detail?: string;
  readonly errors: ProblemField[];

  constructor(
    readonly problem: Problem,
    /** The request that was refused, e.g. `POST /v1/jobs`. */
    readonly request: string,
  ) {
    super(`${problem.status} ${problem.title}${problem.detail ? `: ${problem.detail}` : ''} (${request})`);
    this.status = problem.status;
    this.title = problem.title;
    this.type = problem.type;
    this.detail = problem.detail;
    this.errors = problem.errors ?? [];
  }
}

/** The API could not be reached (or kept failing with 5xx) for a request the client may not or could no longer retry. */
export class DelegateNetworkError extends Error {
  override readonly name = 'DelegateNetworkError';
  constructor(
    message: string,
    /** The request, e.g. `GET /v1/jobs/j1`. */
    readonly request: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** `waitForResult` ran out of time while the job was still running; `view` is its last known state. */
export class DelegateTimeoutError extends Error {
  override readonly name = 'DelegateTimeoutError';
  constructor(
    readonly jobId: string,
    readonly view: JobView,
  ) {
    super(`job "${jobId}" is still running`);
  }
}

/** Reads a problem from an error response: the body when it is one, else one made up from the status. */
export async function problemOf(res: Response): Promise<Problem> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as Partial<Problem>;
    if (body && typeof body === 'object' && typeof body.title === 'string') {
      return { type: body.type ?? 'about:blank', title: body.title, status: typeof body.status === 'number' ? body.status : res.status, detail: body.detail, errors: body.errors };
    }
  } catch {
    // not JSON: a proxy's page, say
  }
  return { type: 'about:blank', title: res.statusText || `HTTP ${res.status}`, status: res.status, ...(text ? { detail: text.slice(0, 500) } : {}) };
}
