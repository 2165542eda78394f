/**
 * The client's errors: a refusal or failure the API answered (RFC 9457 problem details,
 * field paths included), a network failure that outlasted the retries, a wait that ran out.
 */
import type { JobView } from './types.js';

/** One failing field of a refused request: where (`body.tasks[0].question`) and why. */
export interface ProblemField {
  path: string;
  message: string;
}

/** An RFC 9457 problem+json body as the API sends it, its extension members kept (`code`, and e.g. a scout cap's `cap` and `caps`). */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  errors?: ProblemField[];
  /** A machine-readable reason some refusals carry: `scout_cap_exceeded`, `path_outside_root`, … */
  code?: string;
  [extension: string]: unknown;
}

/** What a scout cap has left, per parent session and per scope. */
export interface ScoutCaps {
  perSession: { limit: number; remaining: number };
  perScope: { limit: number; remaining: number };
}

/** The problem of a scout refused over a cap (429): which cap, and what remains. */
export interface ScoutCapProblem extends Problem {
  code: 'scout_cap_exceeded';
  cap: 'session' | 'scope';
  caps: ScoutCaps;
}

/** The API answered with an error status; `problem` is its body (or one made up from the status when the body was not problem+json). */
export class DelegateProblemError extends Error {
  override readonly name = 'DelegateProblemError';
  readonly status: number;
  readonly title: string;
  readonly type: string;
  readonly detail?: string;
  readonly errors: ProblemField[];
  /** The problem's `code`, when it has one (`scout_cap_exceeded`, `path_outside_root`, …). */
  readonly code?: string;

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
    this.code = problem.code;
  }
}

/** True when `err` is a scout refused over a cap: its `problem` then says which cap and what remains. */
export function isScoutCapError(err: unknown): err is DelegateProblemError & { problem: ScoutCapProblem } {
  return err instanceof DelegateProblemError && err.status === 429 && err.code === 'scout_cap_exceeded';
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
      // extension members (code, cap, caps, …) are part of the answer: keep them
      return {
        ...body,
        type: body.type ?? 'about:blank',
        title: body.title,
        status: typeof body.status === 'number' ? body.status : res.status,
      };
    }
  } catch {
    // not JSON: a proxy's page, say
  }
  return {
    type: 'about:blank',
    title: res.statusText || `HTTP ${res.status}`,
    status: res.status,
    ...(text ? { detail: text.slice(0, 500) } : {}),
  };
}
