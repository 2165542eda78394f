/**
 * Two places lean on the Temporal SDK's internals; each must fail loudly when an SDK upgrade
 * moves what it leans on, never go on silently doing nothing:
 * - workflows/job/children.ts `ShieldScope` overrides CancellationScope's protected
 *   `runInContext` (the SDK's `run` is `storage.run(this, this.runInContext.bind(this, fn))`): if
 *   `run` stopped calling it, the override would be skipped and every child would cost its two
 *   promises again, with nothing failing.
 * - workers/bundle.ts `modernWorkflowCode` rewrites the target of the SDK bundler's swc rule; it
 *   throws itself when it does not find exactly one such rule, which this test checks on a
 *   configuration of the SDK's shape and on one without the rule.
 */
import { CancellationScope } from '@temporalio/workflow';
import { describe, expect, it } from 'vitest';
import { workflowWebpackConfig } from '../../workers/bundle';

describe('leans on SDK internals', () => {
  it('CancellationScope.run still hands its work to the protected runInContext that ShieldScope overrides', () => {
    const proto = CancellationScope.prototype as unknown as Record<string, unknown>;
    expect(typeof proto.runInContext).toBe('function');
    expect(String(proto.run)).toMatch(/this\.runInContext/);
  });

  it("the bundler's one swc rule is rewritten to ES2022, and a bundler without it is refused by name", () => {
    const sdkShape = () => ({
      module: {
        rules: [{ test: /\.ts$/, use: { loader: '/x/node_modules/swc-loader/index.js', options: { jsc: { target: 'es2017' } } } }],
      },
      plugins: [],
    });
    const hook = workflowWebpackConfig(10) as (c: unknown) => { module: { rules: { use: { options: { jsc: { target: string } } } }[] } };
    expect(hook(sdkShape()).module.rules[0].use.options.jsc.target).toBe('es2022');
    expect(() => hook({ module: { rules: [] }, plugins: [] })).toThrow(/expected the SDK's one swc-loader rule, found 0/);
  });
});
