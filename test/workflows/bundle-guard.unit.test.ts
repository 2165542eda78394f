/**
 * The guard of zod-free, small workflow runs: a module a run evaluates afresh costs every
 * subtask (one value import of a schema halved throughput once, and came back unnoticed for six
 * issues), so the worker preloads the whole static graph into the reusable context, and this
 * guard keeps it that way: nothing per run but what `import()` loads, and the shared graph free of
 * zod and ajv and within a recorded size. The bundle is built as the worker builds it.
 */
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { eagerBytes, eagerWorkflowGraph, violations, type EagerGraph } from './bundle-graph';

/**
 * What a run evaluated afresh, in bytes of module source as webpack counts them, recorded while
 * runs evaluated their own modules: 741,642 in all (266,031 the project's) when the guard landed;
 * 364,500 (201,429) once core/ was preloaded into the shared context; 404,332 (241,261) with the
 * human-in-the-loop waits; 410,661 (247,590) with the cut-step booking, the step cutter and the A2A
 * cancel mapping; 414,897 (251,826) once `subtask()` became orchestration only; 407,304 (244,233)
 * once routing and the step policy moved to core/. Since the whole graph is preloaded, a run
 * evaluates none of it, and the budget is the shared graph's: what every worker context evaluates
 * once and holds for good, 760,133 bytes (365,726 the project's: 247,274 of workflows/, 118,452 of
 * core/) when the whole graph was first preloaded; 368,383 of the project's once the job's and the
 * subtask's hot path lost their promise wrappers (sync fast paths, each with its comment); 374,182
 * with the job's reports (log lines, finished subtasks) batched per activation and its event writes
 * per burst (5,800 bytes, most of them the comments that say why); 375,718 with the deployment's
 * fan-out cut (EngineLimits.fanoutFlatMax); 377,392 with host rules 3 (the step cut through the
 * root scope, and the input check skipped for jobs the API checked); 685,028 (290,621) once our
 * code was compiled for Node 20 instead of ES2017 (workers/bundle.ts, modernWorkflowCode: no spread
 * or class-field helpers); 300,943 (296,692 before) with a provider's queue and fairness key for
 * steps, the subtask's throttled time, the routing reasons a job hands its subtasks, the re-prompt
 * note, the top-up bounds and the webhook's callback reference. Raise it on purpose, in the commit
 * that needs it, saying why. Raised by 6,000 bytes of the project's (310,000 to 316,000) for the
 * subtask loop as a decision (issue 54): next.ts, the loop's order as a pure function, and loop.ts,
 * its interpreter, took the project's from 306,630 to 312,066. Raised by 8,000 bytes more (to
 * 324,000, and the whole graph's to 716,000) for fair grants (core/allocation.ts fairGrant, the
 * job ledger's floor and its wait for refunds: about 7,500 bytes, half of them comments). Raised by
 * 9,000 bytes more (to 333,000, and the whole graph's to 725,000) for the identical-subtask cache
 * (issue 55): the job's lookup, de-duplication and store (workflows/job/result-cache.ts), the key's
 * parts and the served result (core/result-cache.ts), runTask's split: 8,892 bytes, half comments.
 * Raised by 16,000 bytes more (to 349,000, and the whole graph's to 741,000) for hedged steps (issue
 * 55): the race of a step and its hedge with their cancels (workflows/subtask/hedge.ts), its books
 * (hedge-book.ts), the loop's hedged step, the rules (core/hedge.ts, preloaded with all of core/)
 * and the forecast's extra spend: 15,164 bytes, about half comments. Raised by 12,000 bytes more (to
 * 361,000, and the whole graph's by 14,000 to 755,000) for the down-shift with a quality floor (issue
 * 55): its rule (core/downshift.ts: quality, the committed share, the rung a task steps down to, the
 * note and the event), the subtask's transition and event (workflows/subtask/downshift.ts) and the
 * job's (workflows/job/downshift.ts): 14,576 bytes, about half of them comments. The whole graph's
 * raised by 5,000 more (to 760,000): the hedge and the down-shift were each measured without the
 * other, and together they came to 757,093; with the down-shift's default threshold in a module
 * of its own and the research origin's type among the schemas (which keeps schemas/ and core/ out
 * of a circle of nine files), 757,325, the project's 362,918: raised by 3,000 to 364,000. Raised by
 * 1,000 more (to 761,000 and 365,000) when three modules over 300 lines were split (the children's
 * inputs into workflows/job/child-input.ts, the loop's hedge into workflows/subtask/loop-hedge.ts):
 * the same code plus the new modules' opening comments and imports, 759,125 (364,718). The project's
 * raised by 2,000 more (to 367,000) for the patches that keep a rolling deploy deterministic: the
 * cache and the down-shift are asked through patched() (a worker from before them ignored the
 * spec's fields the API sets): 366,252, the whole graph's 760,659. Raised by 1,000 more (to 368,000,
 * and the whole graph's by 2,000 to 763,000) for the cache's review: a served task takes no fair
 * share, only the agent's own success is kept, a vote's voters always run, a research task's served
 * output names itself: 367,916 (762,323). Raised by 1,000 more (to 369,000 and 764,000) for the
 * hedge's review: no hedge started once the primary ended while its agent was chosen, and a failed
 * latency look-up hedges after afterMs instead of failing the task: 368,775 (763,182). Raised by
 * 2,000 more (to 371,000 and 766,000) for the record's step of each agent as a fair grant's floor
 * (the ledger's recorded floor and its refusal of a step it cannot pay, behind its patch): 370,874
 * (765,281). The project's raised by 1,000 more (to 372,000) for the forecast's hedged latency (a
 * hedged step ends at the delay plus another step: core/forecast.ts, preloaded with all of core/):
 * 371,273 (765,680). Raised by 1,000 more (to 373,000 and 767,000) for the forecast of a task's own
 * ladder (its steps past the threshold at the cheaper agent's figures: core/forecast.ts again, which
 * no workflow runs; moving the forecast out of core/ would give back some 20,000): 372,562 (766,969).
 * Raised by 1,000 more (to 374,000, and the whole graph's by 2,000 to 769,000) when core/forecast.ts
 * (484 lines) was split into the plan's types (forecast-plan.ts), the schedules (forecast-schedule.ts)
 * and the draws: the same code plus two modules' opening comments and imports, 373,918 (768,325).
 */
const BUDGET = { total: 769_000, project: 374_000 };

let graph: EagerGraph;
beforeAll(async () => {
  graph = await eagerWorkflowGraph();
}, 120_000);

describe('the workflow bundle', () => {
  it('evaluates no zod, ajv, schemas/ or other module outside the SDK, workflows/ and core/, per run or per context', () => {
    expect(violations(graph)).toEqual([]);
    expect([...graph.eager.keys(), ...graph.shared.keys()].filter((p) => /^(zod|ajv)\//.test(p))).toEqual([]);
  });

  it('leaves a run nothing to evaluate afresh: the workflows, their imports and the interceptors are shared', () => {
    expect([...graph.eager.keys()]).toEqual([]);
    expect(graph.shared.has('workflows/subtask/run.ts')).toBe(true);
    expect(graph.shared.has('workflows/log-context.ts')).toBe(true);
  });

  it('loads the job input check lazily: the one named exception, reached by import()', () => {
    expect(graph.lazy).toContain('schemas/job-input.ts');
    expect(graph.eager.has('schemas/job-input.ts')).toBe(false);
  });

  it('shares the pure rules of core/ across runs instead of evaluating them in each', () => {
    expect([...graph.shared.keys()].filter((p) => p.startsWith('core/')).length).toBeGreaterThan(5);
    expect([...graph.eager.keys()].filter((p) => p.startsWith('core/'))).toEqual([]);
  });

  it('stays within its recorded size', () => {
    const bytes = eagerBytes(graph.shared);
    expect(bytes.total, `shared graph ${bytes.total} bytes`).toBeLessThanOrEqual(BUDGET.total);
    expect(bytes.project, `project modules ${bytes.project} bytes`).toBeLessThanOrEqual(BUDGET.project);
  });

  it('compiles our code for the Node that runs it: no helper stands in for an object spread or a class field', () => {
    expect(graph.downlevelHelpers).toEqual([]);
  });

  it('fails on a value import of a schema, naming the chain of imports that reached zod', async () => {
    const leaky = await eagerWorkflowGraph({
      entry: fileURLToPath(new URL('../fixtures/bundle-guard/leaky-workflows.ts', import.meta.url)),
    });
    const found = violations(leaky, ['workflows/', 'core/', 'test/fixtures/bundle-guard/']);
    expect(found).toContainEqual(
      expect.stringMatching(/^schemas\/job\.ts is evaluated by every worker context: .*leaky-workflows\.ts > schemas\/job\.ts$/),
    );
    expect(found).toContainEqual(
      expect.stringMatching(
        /^zod\/index\.js is evaluated by every worker context: .*leaky-workflows\.ts > schemas\/job\.ts > .*zod\/index\.js$/,
      ),
    );
  }, 120_000);
});
