/**
 * The code scout's lifecycle on the API side: prep (scope and caps checked, nothing written),
 * dispatch (a place reserved under the caps, then a one-task job on the scout agent), reads,
 * and the explicit commit. The job commits its own report at its end (workflows/job/scout.ts).
 *
 *   prep ──resolveScope (path_outside_root) ──caps (429)──> { id, prompt, caps }
 *   dispatch ── prep ──reserve (atomic; 429)──> job { scout task: read_file + grep, outputSchema } ──> 201
 */
import { resolveScope, type ScopeRefusal } from '../../activities/scout/sandbox';
import { NO_SCOUT_ROOT, scoutRootsOf } from '../../activities/scout/scout-root';
import { settleScout } from '../../activities/scout/commit';
import type { ScoutJobInput } from '../../contracts/job';
import type { Budget, Config, JobSpec } from '../../schemas';
import type { RecordStore, ScoutRecord, ScoutRemaining } from '../../record';
import { randomSuffix, SCOUT_ANSWER_JSON_SCHEMA, SCOUT_TOOLS, scoutId, scoutPrompt, type ScoutRequest } from '../../schemas/scout';
import type { JobService } from '../job-service';
import { HttpProblem } from '../errors';
import { reportScout } from './report';

/** A scout request as POST /v1/scouts takes it: the contract's fields and Delegate's extensions. */
export type ScoutDispatch = ScoutRequest & { agent?: string; params?: Record<string, unknown>; budget?: Budget; autoCommit?: boolean };

/** The caps, with what is left of each. */
export interface CapsView {
  perSession: { limit: number; remaining: number };
  perScope: { limit: number; remaining: number };
}

/** A 429 that says which cap and what remains, before anything is dispatched. */
export class ScoutCapProblem extends HttpProblem {
  constructor(
    readonly cap: 'session' | 'scope',
    readonly caps: CapsView,
  ) {
    super(
      429,
      'Scout cap reached',
      cap === 'session'
        ? `this parent session has dispatched its ${caps.perSession.limit} scouts`
        : `this parent session has sent its ${caps.perScope.limit} scouts over this scope`,
      undefined,
      undefined,
      { code: 'scout_cap_exceeded', cap, caps },
    );
  }
}

const SCOPE_DETAIL = {
  path_outside_root: (path: string) => `${path} resolves outside the scout root`,
  path_denied: (path: string) => `${path} is a dot-entry or a secret-bearing file, which scouts never read`,
  not_found: (path: string) => `${path} does not exist`,
};

/** No scout root is configured for this tenant: 422 that says what to set. */
export class NoScoutRootProblem extends HttpProblem {
  constructor() {
    super(422, 'Scout cannot run', NO_SCOUT_ROOT, undefined, undefined, { code: 'scout_root_unset' });
  }
}

/** A scope path that is not inside the root, is denied, or does not exist: 422 with its path and the code. */
export class ScopeProblem extends HttpProblem {
  constructor(
    readonly code: ScopeRefusal,
    index: number,
    path: string,
  ) {
    super(
      422,
      'Scout cannot run',
      SCOPE_DETAIL[code](path),
      [{ path: `body.scopePaths[${index}]`, message: `${code}: ${path}` }],
      undefined,
      { code },
    );
  }
}

/** Default budget of a scout's subtask: enough for a survey, never an open tab. */
export const SCOUT_BUDGET: Budget = { toolCalls: 40, latencySeconds: 300 };

/** Creates the scout service over the record and the job service. */
export function createScoutService({ config, record, jobs }: { config: Config; record: RecordStore; jobs: JobService }) {
  /** The tenant's scout root; undefined when none is configured (the scout is off for it). */
  const rootFor = scoutRootsOf(config);
  const caps = { perSession: config.DELEGATE_SCOUT_CAP_PER_SESSION, perScope: config.DELEGATE_SCOUT_CAP_PER_SCOPE };
  const view = (r: ScoutRemaining): CapsView => ({
    perSession: { limit: caps.perSession, remaining: r.session },
    perScope: { limit: caps.perScope, remaining: r.scope },
  });
  const job = (id: string, autoCommit: boolean): ScoutJobInput => ({
    id,
    autoCommit,
    maxTokens: config.DELEGATE_SCOUT_REPORT_TOKENS,
    tokenizer: config.DELEGATE_SCOUT_TOKENIZER,
  });

  /** The scope resolved inside the root, or the problem with the path at fault. */
  async function scopeOf(tenant: string, req: ScoutRequest): Promise<string[]> {
    const root = rootFor(tenant);
    if (root === undefined) throw new NoScoutRootProblem();
    const scope = await resolveScope(root, req.scopePaths, config.DELEGATE_SCOUT_ALLOW);
    if (!scope.ok) throw new ScopeProblem(scope.reason, scope.index, scope.path);
    return scope.paths;
  }

  /**
   * The prep answer: a fresh id, the standard prompt, the resolved scope and the caps left; 429 over a cap.
   * With `harness`, the id is taken (the scout is `prepped`) for the harness's own sub-agent, whose report comes back to `report`.
   */
  async function prep(tenant: string, req: ScoutRequest, { harness = false } = {}) {
    const scopePaths = await scopeOf(tenant, req);
    const left = view(await record.scouts.remaining(tenant, req.parentSessionId, scopePaths, caps));
    if (left.perSession.remaining <= 0) throw new ScoutCapProblem('session', left);
    if (left.perScope.remaining <= 0) throw new ScoutCapProblem('scope', left);
    const id = scoutId(req, new Date(), randomSuffix());
    if (harness)
      await record.scouts.prepare(tenant, {
        id,
        parentAgent: req.parentAgent,
        parentSessionId: req.parentSessionId,
        featureSlug: req.featureSlug ?? null,
        question: req.question,
        scopePaths,
        excerpt: req.parentSessionExcerpt,
        createdAt: Date.now(),
      });
    return {
      id,
      scopePaths,
      caps: left,
      prompt: scoutPrompt(req, config.DELEGATE_SCOUT_REPORT_TOKENS),
      maxTokens: config.DELEGATE_SCOUT_REPORT_TOKENS,
      tools: [...SCOUT_TOOLS],
    };
  }

  return {
    rootFor,
    prep,

    /** Reserves a place under the caps and starts the scout's job; the reservation is freed if the job cannot start. */
    async dispatch(tenant: string, req: ScoutDispatch) {
      const p = await prep(tenant, req);
      const reserved = await record.scouts.reserve(
        tenant,
        {
          id: p.id,
          parentAgent: req.parentAgent,
          parentSessionId: req.parentSessionId,
          featureSlug: req.featureSlug ?? null,
          question: req.question,
          scopePaths: p.scopePaths,
          excerpt: req.parentSessionExcerpt,
          jobId: p.id,
          createdAt: Date.now(),
        },
        caps,
      );
      if (!reserved.ok) throw new ScoutCapProblem(reserved.cap, view(reserved.remaining));
      const spec: JobSpec = {
        jobId: p.id,
        pattern: 'fanout',
        objective: `code scout: ${req.question}`.slice(0, 2000),
        tasks: [
          {
            id: 'scout',
            question: p.prompt,
            agent: req.agent ?? config.DELEGATE_SCOUT_AGENT,
            params: req.params ?? { paths: p.scopePaths },
            // exactly the two tools: the host refuses any other, whatever the model asks
            scope: [...SCOUT_TOOLS],
            outputSchema: SCOUT_ANSWER_JSON_SCHEMA,
            budget: req.budget ?? SCOUT_BUDGET,
          },
        ],
        labels: {
          contract: 'code-scout',
          parent_agent: req.parentAgent.replace(/[^A-Za-z0-9 _.:/@+-]/g, '_').slice(0, 256),
          parent_session: req.parentSessionId,
          ...(req.featureSlug ? { feature: req.featureSlug } : {}),
        },
      };
      try {
        await jobs.submit(tenant, spec, undefined, { scout: job(p.id, req.autoCommit ?? true) });
      } catch (err) {
        await record.scouts.fail(tenant, p.id, null, Date.now());
        throw err;
      }
      return { id: p.id, jobId: p.id, caps: view(reserved.remaining), prompt: p.prompt };
    },

    /** A scout as the record has it; with `waitSeconds`, waits that long for a dispatched one to settle. */
    async get(tenant: string, id: string, waitSeconds = 0): Promise<ScoutRecord> {
      const row = await record.scouts.get(tenant, id);
      if (!row) throw new HttpProblem(404, 'Not found', `no scout "${id}"`);
      if (row.state !== 'dispatched' || !row.jobId || waitSeconds <= 0) return row;
      await jobs.result(tenant, row.jobId, waitSeconds).catch(() => undefined);
      return (await record.scouts.get(tenant, id)) ?? row;
    },

    /** Commits a dispatched scout whose job has finished (one started with autoCommit false). */
    async commit(tenant: string, id: string) {
      const row = await record.scouts.get(tenant, id);
      if (!row) throw new HttpProblem(404, 'Not found', `no scout "${id}"`);
      if (row.state === 'prepped')
        throw new HttpProblem(409, 'Conflict', `scout "${id}" runs in the harness: POST its report to /v1/scouts/${id}/report`);
      if (row.state !== 'dispatched')
        throw new HttpProblem(409, 'Conflict', `scout "${id}" is already ${row.state === 'committed' ? 'committed' : 'settled as error'}`);
      const result = row.jobId ? await jobs.result(tenant, row.jobId, 0) : undefined;
      if (!result) throw new HttpProblem(409, 'Conflict', `scout "${id}" is still running`);
      const out = await settleScout(
        { scouts: record.scouts, events: record.events, rootFor },
        tenant,
        id,
        result.results[0],
        job(id, false),
      );
      const left = view(await record.scouts.remaining(tenant, row.parentSessionId, row.scopePaths, caps));
      return { ...out, caps: left };
    },

    /**
     * Validates the report of a prepped scout made by the harness's own sub-agent and (unless `validateOnly`)
     * commits it: 422 with the JSON path when invalid (one retry counted, the second final), 429 over a cap.
     */
    async report(tenant: string, id: string, body: unknown, validateOnly = false) {
      const out = await reportScout(
        {
          scouts: record.scouts,
          rootFor,
          caps,
          allow: config.DELEGATE_SCOUT_ALLOW,
          report: { maxTokens: config.DELEGATE_SCOUT_REPORT_TOKENS, tokenizer: config.DELEGATE_SCOUT_TOKENIZER },
        },
        tenant,
        id,
        body,
        validateOnly,
      );
      if (out.capRefused) throw new ScoutCapProblem(out.capRefused, view(out.remaining!));
      const row = (await record.scouts.get(tenant, id))!;
      const left = out.remaining
        ? view(out.remaining)
        : view(await record.scouts.remaining(tenant, row.parentSessionId, row.scopePaths, caps));
      return { valid: true as const, committed: out.committed, report: out.report, cut: out.cut, caps: left };
    },

    /** A tenant's scouts, newest first. */
    list: (tenant: string, f: { feature?: string; parentSessionId?: string; limit: number; cursor?: string }) =>
      record.scouts.list(tenant, f),
  };
}

/** The scout service's interface. */
export type ScoutService = ReturnType<typeof createScoutService>;
