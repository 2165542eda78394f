/**
 * The identical-subtask cache as a job runs it (rules in core/result-cache.ts): before a covered
 * task starts, one local activity hashes its key and reads the tenant's record; a hit is the
 * task's result at once, and no child starts. Identical tasks of this job run once: the first
 * claims the key, the others wait for its result and are served it when it succeeded.
 *
 *   task (cache) ──lookupCachedResult──> hit ──────────────────────────────> served ($0, cachedFrom: that job)
 *                                    └─> miss ──key claimed by another task──> wait ──success──> served (cachedFrom: this job)
 *                                             └─> claim ──child runs──> settle ──success──> storeCachedResult
 *
 * Only specs with `cache` take this path, and only runs that took CACHE_PATCH: runs of every other
 * spec command what they did before, and so do runs a worker from before the cache began.
 */
import { log, patched, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { JobInput } from '../../contracts/job';
import type { TaskResult, TaskSpec } from '../../schemas';
import { submittedManifest } from '../../core/routing';
import { cacheKeyParts, cacheOf, servedResult } from '../../core/result-cache';
import { currentModel } from './model';
import type { RunContext } from './run-context';

/**
 * Since this patch, a covered task is looked up before its child starts. The spec alone cannot
 * choose it: the API sets `cache` whichever worker runs the job, and a run an older worker began
 * started its children without a lookup. Asked at the first covered task only.
 */
const CACHE_PATCH = 'result-cache';

const { lookupCachedResult, storeCachedResult } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  // the cache is an optimisation: a record that does not answer soon lets the task run
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
});

/** A task's hold on its key while it runs: identical tasks of the job wait for `settle`. */
export interface CacheClaim {
  key: string;
  ttlSeconds: number;
  /** The agent the key names: only its own success is kept. */
  agentId: string;
  settle(result: TaskResult): void;
}

/** A result another task may be served: a success of the agent its key names (not a fallback's, a down-shift's or another agent's hedge). */
const reusable = (r: TaskResult, agentId: string) => r.status === 'success' && r.agentId === agentId;

/** The cache of one job run. */
export class JobResultCache {
  /** Per key, the result of the task of this job that claimed it (pending while it runs). */
  private readonly claimed = new Map<string, Promise<TaskResult>>();
  /** Whether this run took CACHE_PATCH, asked once (at the first covered task). */
  private patched?: boolean;

  constructor(
    private readonly input: JobInput,
    private readonly tenant: string,
    /** The job a served result names as its source: the root job. */
    private readonly rootJobId: string,
  ) {}

  /**
   * True when the task runs with a cache, its agent was resolved at submission (its version is
   * known) and the run took CACHE_PATCH.
   */
  covers(task: TaskSpec): boolean {
    const { spec, agents } = this.input;
    if (cacheOf(task, spec) === undefined || submittedManifest(task, agents) === undefined) return false;
    return (this.patched ??= patched(CACHE_PATCH));
  }

  /**
   * Before a covered task starts: the result to serve it, else its claim on the key (to settle
   * with its own result); undefined when the lookup failed (the task runs as without a cache).
   */
  async before(task: TaskSpec, context: RunContext): Promise<{ served: TaskResult } | { claim: CacheClaim } | undefined> {
    const cache = cacheOf(task, this.input.spec)!;
    const manifest = submittedManifest(task, this.input.agents)!;
    const started = Date.now();
    let key: string;
    try {
      const parts = cacheKeyParts(task, manifest, currentModel(this.input), context);
      const found = await lookupCachedResult({ tenant: this.tenant, parts });
      if (found.hit) return { served: servedResult(found.hit.result, task, found.hit.jobId, Date.now() - started) };
      key = found.key;
    } catch (err) {
      log.warn('result cache lookup failed: the task runs', { taskId: task.id, error: String(err) });
      return undefined;
    }
    // an identical task of this job is running: its success is this one's too
    for (let first = this.claimed.get(key); first; first = this.claimed.get(key)) {
      const r = await first;
      if (reusable(r, manifest.id)) return { served: servedResult(r, task, this.rootJobId, Date.now() - started) };
      // it failed (or another agent answered): the first waiter to wake claims the key and runs, the others wait for it
      if (this.claimed.get(key) === first) this.claimed.delete(key);
    }
    let settle!: (r: TaskResult) => void;
    this.claimed.set(key, new Promise<TaskResult>((resolve) => (settle = resolve)));
    return { claim: { key, ttlSeconds: cache.ttlSeconds, agentId: manifest.id, settle } };
  }

  /** After a claimed task's own run: the tasks waiting on it told, and its agent's success kept for the tenant's identical subtasks. */
  async after(claim: CacheClaim, result: TaskResult): Promise<void> {
    claim.settle(result);
    if (!reusable(result, claim.agentId)) return;
    try {
      await storeCachedResult({ tenant: this.tenant, key: claim.key, jobId: this.rootJobId, result, ttlSeconds: claim.ttlSeconds });
    } catch (err) {
      log.warn('result cache store failed: the result stays uncached', { taskId: result.id, error: String(err) });
    }
  }
}
