/**
 * The rolling-deploy scenario's version N+1 (test/chaos/next-version.ts) is this checkout's
 * subtask workflow with one patched change inserted at anchors. Checked here, in seconds, so a
 * refactor of the subtask workflow that moves an anchor fails the unit run by name rather than
 * only the chaos suite.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyNextVersion, CHANGED_FILE, NEXT_VERSION_PATCH } from '../chaos/next-version';

const source = readFileSync(join(import.meta.dirname, '../..', CHANGED_FILE), 'utf8');

describe('rolling deploy: version N+1 of the subtask workflow', () => {
  it('finds its anchors in the current workflow and puts the change behind the patch', () => {
    const next = applyNextVersion(source);
    expect(next).toContain(`n1Patched(${JSON.stringify(NEXT_VERSION_PATCH)})`);
    expect(next).toContain('n1UpsertMemo(');
    // the import, the flag and the guarded block; the rest of the file is N's
    expect(
      next
        .replace(/^import \{ patched as n1Patched.*\n/, '')
        .replace('  let n1Marked = false;\n', '')
        .replace(/ {4}\/\/ version N\+1[\s\S]*?\n {4}}\n/, ''),
    ).toBe(source);
  });

  it('leaves the patch out of the unguarded control', () => {
    const control = applyNextVersion(source, { unguarded: true });
    expect(control).toContain("if (action.kind === 'runStep' && !n1Marked) {");
    expect(control).not.toContain(`n1Patched(${JSON.stringify(NEXT_VERSION_PATCH)})`);
  });

  it('names the anchor a refactor moved', () => {
    expect(() => applyNextVersion(source.replace('  for (let turn: Turn = BEGIN; ;) {\n', '  for (;;) {\n'))).toThrow(
      /anchor "for \(let turn: Turn = BEGIN; ;\) \{" not found in workflows\/subtask\/index\.ts/,
    );
  });
});
