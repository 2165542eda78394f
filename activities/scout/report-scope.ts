/**
 * The scope check of a report made elsewhere (a harness's own sub-agent): every file it says it
 * read and every file a finding cites must be inside the prep's scope, through the sandbox's
 * rules (inside the root, symlinks followed, never a dot-entry or a secret-bearing file).
 *
 *   files_inspected[i], findings[j].file ──resolveScope(root)──> inside a scope path? ──> ok | first refusal (its JSON path)
 */
import { resolveScope, type ScopeRefusal } from './sandbox';

/** Why a report's path is refused: the sandbox's reasons, or inside the root but outside the prep's scope. */
export type ReportPathRefusal = ScopeRefusal | 'path_outside_scope';

/** The first path of a report refused, with its JSON path (`body.files_inspected[2]`); undefined when all hold. */
export async function reportPathRefusal(
  root: string,
  scopePaths: string[],
  report: { files_inspected: string[]; findings: { file: string }[] },
  allow?: readonly string[],
): Promise<{ at: string; path: string; reason: ReportPathRefusal } | undefined> {
  const paths = [
    ...report.files_inspected.map((path, i) => ({ at: `body.files_inspected[${i}]`, path, mustExist: true })),
    // a finding on a missing file is fabricated: verification drops it rather than refusing the report
    ...report.findings.map((f, i) => ({ at: `body.findings[${i}].file`, path: f.file, mustExist: false })),
  ];
  for (const p of paths) {
    const r = await resolveScope(root, [p.path], allow);
    if (!r.ok) {
      if (r.reason === 'not_found' && !p.mustExist) continue;
      return { at: p.at, path: p.path, reason: r.reason };
    }
    const rel = r.paths[0]!;
    if (!scopePaths.some((s) => s === '.' || rel === s || rel.startsWith(`${s}/`)))
      return { at: p.at, path: p.path, reason: 'path_outside_scope' };
  }
  return undefined;
}
