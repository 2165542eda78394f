/**
 * DELEGATE_WORKFLOW_STACK_FRAMES: the frames a stack keeps in the workers' workflow context,
 * baked into the bundle (workflows/stack-frames.ts). The Stack Trace tab's view of it, on a real
 * server, is in test/workflows/ui-outcome.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_WORKFLOW_STACK_FRAMES } from '../../core/engine-limits';
import { loadConfig } from '../../config/config';
import { bundleWorkflows, preloadModules, workflowWebpackConfig } from '../../workers/bundle';

describe('DELEGATE_WORKFLOW_STACK_FRAMES', () => {
  it('defaults to 4 and refuses what is not a frame count, naming the variable', () => {
    expect(loadConfig({}).DELEGATE_WORKFLOW_STACK_FRAMES).toBe(DEFAULT_WORKFLOW_STACK_FRAMES);
    expect(DEFAULT_WORKFLOW_STACK_FRAMES).toBe(4);
    expect(loadConfig({ DELEGATE_WORKFLOW_STACK_FRAMES: '12' }).DELEGATE_WORKFLOW_STACK_FRAMES).toBe(12);
    for (const bad of ['0', '2.5', 'ten', '101'])
      expect(() => loadConfig({ DELEGATE_WORKFLOW_STACK_FRAMES: bad })).toThrow(/DELEGATE_WORKFLOW_STACK_FRAMES/);
    expect(() => workflowWebpackConfig(0)).toThrow(/positive integer/);
  });

  it('is compiled into the bundle the worker runs, set before anything else the context preloads', async () => {
    const code = (await bundleWorkflows({ stackFrames: 7 })).code;
    const set = code.indexOf('Error.stackTraceLimit =');
    expect(set).toBeGreaterThan(0);
    // the define left the value (webpack folds the check), not the name
    expect(code.slice(set, set + 60)).toMatch(/^Error\.stackTraceLimit =\s+true \? 7 :/);
    expect(code).not.toContain('__DELEGATE_WORKFLOW_STACK_FRAMES__');
    expect(preloadModules()[0]).toMatch(/workflows\/stack-frames\.ts$/);
  }, 60_000);
});
