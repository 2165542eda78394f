/**
 * How many frames a stack trace in the workflow context keeps, set once when the worker's
 * reusable V8 context preloads its modules (before the SDK freezes the context's globals).
 *
 * The SDK captures a stack for every promise a workflow creates (the UI's "Stack Trace" query
 * shows the pending ones), and maps each frame through the bundle's source map: that capture
 * was the largest single cost of a subtask run on the workflow thread, growing with each frame
 * kept. V8 keeps `Error.stackTraceLimit` frames (10 by default); the worker sets
 * `DELEGATE_WORKFLOW_STACK_FRAMES` (default 4) into the bundle, which still shows where each run
 * waits (the line that awaits and its caller) and the top of a workflow error's stack. A deeper
 * stack for a debugging session is a worker restart away; the commands do not depend on it.
 */
import { DEFAULT_WORKFLOW_STACK_FRAMES } from '../core/engine-limits';

/** Set at bundle time by the worker's webpack hook (workers/bundle.ts, workflowWebpackConfig). */
declare const __DELEGATE_WORKFLOW_STACK_FRAMES__: number | undefined;

Error.stackTraceLimit =
  typeof __DELEGATE_WORKFLOW_STACK_FRAMES__ === 'number' ? __DELEGATE_WORKFLOW_STACK_FRAMES__ : DEFAULT_WORKFLOW_STACK_FRAMES;
