/**
 * No circle of value imports in the project (issue 25): two closed again unnoticed after the
 * layers were drawn (the subtask's state and its inbox; a job and the module that starts its
 * children), so a test keeps the rule, not a picture.
 */
import { describe, expect, it } from 'vitest';
import { ROOT } from '../docs/blocks';
import { projectCircles, sourceFiles, valueImportCircles, valueImports } from './import-circles';

describe('value-import circles', () => {
  it('the project has none (type-only imports are fine)', () => {
    expect(sourceFiles(ROOT).length).toBeGreaterThan(200);
    expect(projectCircles(ROOT)).toEqual([]);
  });

  it('finds a circle through a value import, and none through type-only ones', () => {
    const files = new Map([
      ['a/x.ts', `import { y } from '../b/y';\nexport const x = () => y;`],
      ['b/y.ts', `import { z } from './z.js';\nexport const y = 1;`],
      ['b/z.ts', `import { x } from '../a/x';\nexport * from './w';\nexport const z = x;`],
      ['b/w/index.ts', `import type { X } from '../../a/x';\nimport { type Y } from '../y';\nexport type { Z } from '../z';`],
    ]);
    expect(valueImportCircles(files)).toEqual([['a/x.ts', 'b/y.ts', 'b/z.ts']]);
    files.set('b/z.ts', `import type { x } from '../a/x';\nexport const z = 1;`);
    expect(valueImportCircles(files)).toEqual([]);
  });

  it('reads which imports are values', () => {
    const src = [
      `import a from './a';`,
      `import type b from './b';`,
      `import { type C, d } from './cd';`,
      `import { type E } from './e';`,
      `import * as f from './f';`,
      `import './g';`,
      `export { h } from './h';`,
      `export type { I } from './i';`,
      `import { z } from 'zod';`,
    ].join('\n');
    expect(valueImports('t.ts', src)).toEqual(['./a', './cd', './f', './g', './h']);
  });
});
