/**
 * The workflow bundle: which modules it holds (the workflows, their interceptors, the modules a
 * worker context preloads and shares with every run), how the SDK's webpack configuration is
 * changed for them (ES2022 for Node 20, the stack depth), and bundling once for a process or a
 * test run. worker.ts builds the workers that run it.
 *
 *   workflows/index.ts + log-context.ts (+ tracing interceptors) ── preload: stack-frames.ts, core/*, workflows
 *        ── webpack (swc → es2022, __DELEGATE_WORKFLOW_STACK_FRAMES__) ── WorkflowBundle
 */
import { bundleWorkflowCode, type WorkerOptions, type WorkflowBundle } from '@temporalio/worker';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_WORKFLOW_STACK_FRAMES } from '../core/engine-limits';
import { tracingWorkflowModules } from '../telemetry/worker-tracing';

/** Path of the one workflows module the worker registers. */
export const workflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

/** Workflow interceptor modules every worker loads: the ids on every workflow log line. */
export const workflowInterceptorModules = [fileURLToPath(new URL('../workflows/log-context.ts', import.meta.url))];

/** Bundles that hold the tracing interceptors: a worker checks its bundle matches its tracing. */
const tracedBundles = new WeakSet<WorkflowBundle>();

/** Whether `bundle` came from `bundleWorkflows({ tracing: true })`. */
export const isTracedBundle = (bundle: WorkflowBundle) => tracedBundles.has(bundle);

/** The workflow interceptor modules of a bundle: the log ids always, the tracing ones when traced. */
export const interceptorModules = (tracing: boolean) => [...workflowInterceptorModules, ...(tracing ? tracingWorkflowModules : [])];

/**
 * The modules a reusable V8 context evaluates once and shares with every workflow run: the
 * workflows and everything they import statically (workflows/, core/, the SDK), and the pure
 * rules of core/ that only the API and activities reach otherwise. A module a run evaluates
 * afresh costs every subtask its evaluation and its own copy of every function and class it
 * defines (CPU per run, and the heap of every run the worker caches), so none is left to the
 * run: only what a dynamic `import()` loads (the job's input check) is evaluated per run. The SDK
 * deep-freezes what it shares; shared modules keep no state of their own (lint forbids a
 * module-level `let` in workflows/ and core/; a run's own ids live on its own globals:
 * log-context.ts).
 */
export function preloadModules(): string[] {
  const dir = fileURLToPath(new URL('../core/', import.meta.url));
  const core = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .map((f) => join(dir, f));
  // first: the stack depth is set before anything else runs in the context, and before the SDK freezes `Error`
  return [stackFramesModule, ...core, workflowsPath, ...workflowInterceptorModules];
}

/** The module that sets the workflow context's stack depth (preloaded first). */
const stackFramesModule = fileURLToPath(new URL('../workflows/stack-frames.ts', import.meta.url));

/** A webpack configuration, as the SDK's bundler hands it to `webpackConfigHook`. */
type WebpackConfig = Parameters<NonNullable<NonNullable<WorkerOptions['bundlerOptions']>['webpackConfigHook']>>[0];

/** The syntax level our workflow code is compiled to: what the worker's Node (20) runs natively. */
const WORKFLOW_TARGET = 'es2022';

/**
 * Compiles our TypeScript for the Node that runs it. The SDK's bundler asks swc for ES2017, so
 * every object spread became a call to a helper that copies key by key (`_object_spread`, 248
 * in the bundle), every class field a `defineProperty` call (149), every `?.` and `??` a ladder
 * of temporaries; a subtask run spent workflow-thread time in those helpers alone
 * (replay profile, bench/history/2026-12-05-diary.md). Node 20's V8 runs ES2022 as it is, so the bundle keeps
 * it: same semantics (class fields are defined either way), same commands, less work per run.
 */
function modernWorkflowCode(config: WebpackConfig): WebpackConfig {
  const rules = config.module?.rules ?? [];
  let found = 0;
  for (const rule of rules) {
    if (!rule || typeof rule !== 'object' || !rule.use || typeof rule.use !== 'object' || Array.isArray(rule.use)) continue;
    const use = rule.use as { loader?: string; options?: { jsc?: { target?: string } } };
    if (!use.loader?.includes('swc-loader') || !use.options?.jsc) continue;
    use.options.jsc.target = WORKFLOW_TARGET;
    found++;
  }
  // the SDK's bundler changed shape: say so rather than bundle slower code unnoticed
  if (found !== 1) throw new Error(`modernWorkflowCode: expected the SDK's one swc-loader rule, found ${found}`);
  return config;
}

/** A webpack plugin that defines `name` as `value` in the bundle, with the bundling compiler's own webpack. */
const definePlugin = (name: string, value: number) => ({
  apply(compiler: { webpack: { DefinePlugin: new (defs: Record<string, string>) => { apply(c: unknown): void } } }) {
    new compiler.webpack.DefinePlugin({ [name]: JSON.stringify(value) }).apply(compiler);
  },
});

/**
 * The worker's changes to the SDK's webpack configuration: our code compiled for Node 20
 * (`modernWorkflowCode`), and the frames a stack trace keeps in the workflow context
 * (`stackFrames`, DELEGATE_WORKFLOW_STACK_FRAMES; workflows/stack-frames.ts says why it is not V8's 10).
 */
export function workflowWebpackConfig(stackFrames: number = DEFAULT_WORKFLOW_STACK_FRAMES) {
  if (!Number.isInteger(stackFrames) || stackFrames < 1) throw new Error(`stackFrames must be a positive integer, not ${stackFrames}`);
  return (config: WebpackConfig): WebpackConfig => {
    const modern = modernWorkflowCode(config);
    return { ...modern, plugins: [...(modern.plugins ?? []), definePlugin('__DELEGATE_WORKFLOW_STACK_FRAMES__', stackFrames) as never] };
  };
}

/**
 * Bundles the workflows once (tests and benchmarks reuse the bundle). A traced bundle also
 * holds the tracing interceptors: workflow interceptors are compiled into the bundle, so
 * tracing on or off is a bundle of its own, and an untraced worker runs no tracing code.
 */
export async function bundleWorkflows({
  tracing = false,
  stackFrames,
}: { tracing?: boolean; stackFrames?: number } = {}): Promise<WorkflowBundle> {
  const bundle = await bundleWorkflowCode({
    workflowsPath,
    workflowInterceptorModules: interceptorModules(tracing),
    preloadModules: preloadModules(),
    webpackConfigHook: workflowWebpackConfig(stackFrames),
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } as never,
  });
  if (tracing) tracedBundles.add(bundle);
  return bundle;
}
