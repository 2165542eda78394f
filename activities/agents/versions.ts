/**
 * Versions side by side: the agents file may hold several entries of one id, each its own
 * semantic version, some deprecated. A reference picks one:
 *
 *   "x"        ──> the newest version not deprecated (all deprecated: the newest)
 *   "x@^2"     ──> the newest 2.x not deprecated (only deprecated ones match: the newest of them)
 *   "x@2.1.0"  ──> exactly that version, deprecated or not
 *
 * The id a run names its agent by (`TaskResult.agentId`) is `x@2.3.0` when the id has several
 * versions, so every worker runs the version the task was routed to; `x` when it has one.
 */
import semver from 'semver';

/** What a version pick reads of an agent. */
export interface Versioned {
  version: string;
  deprecated?: boolean | string;
}

/** A reference split at its `@`: the id, and the version or range after it (absent: none). */
export function parseAgentRef(ref: string): { id: string; range?: string } {
  const at = ref.indexOf('@');
  return at < 0 ? { id: ref } : { id: ref.slice(0, at), range: ref.slice(at + 1) };
}

/** The id of an agent at a version: the id a run names it by when its id has several versions. */
export const pinnedId = (id: string, version: string): string => `${id}@${version}`;

/** Newest first by semantic version (a version that is not one sorts last, in file order). */
export function newestFirst<T extends Versioned>(entries: T[]): T[] {
  return [...entries].sort((a, b) => {
    const va = semver.valid(a.version);
    const vb = semver.valid(b.version);
    if (va && vb) return semver.rcompare(va, vb);
    return va ? -1 : vb ? 1 : 0;
  });
}

/** The entry a range takes (see the file's comment), among entries sorted newest first; undefined: none matches. */
export function pickVersion<T extends Versioned>(newest: T[], range?: string): T | undefined {
  if (range === undefined) return newest.find((e) => !e.deprecated) ?? newest[0];
  const exact = newest.find((e) => e.version === range);
  if (exact) return exact;
  if (semver.validRange(range) === null) return undefined;
  const matching = newest.filter((e) => semver.valid(e.version) !== null && semver.satisfies(e.version, range));
  return matching.find((e) => !e.deprecated) ?? matching[0];
}

/** The versions of an id as a refusal lists them: `1.4.0 (deprecated), 2.0.0, 2.3.0`. */
export function versionList(entries: Versioned[]): string {
  return [...newestFirst(entries)]
    .reverse()
    .map((e) => `${e.version}${e.deprecated ? ' (deprecated)' : ''}`)
    .join(', ');
}

/** What is wrong with the versions of the agents sharing an id (each with the index of its entry): not semantic versions, or one twice. */
export function versionIssues(agents: { id: string; version: string }[]): { index: number; message: string }[] {
  const byId = new Map<string, number[]>();
  agents.forEach((a, i) => byId.set(a.id, [...(byId.get(a.id) ?? []), i]));
  const issues: { index: number; message: string }[] = [];
  for (const [id, at] of byId) {
    if (at.length < 2) continue;
    const seen = new Map<string, number>();
    for (const i of at) {
      const v = agents[i].version;
      if (semver.valid(v) === null)
        issues.push({ index: i, message: `"${v}" is not a semantic version (x.y.z), and ${at.length} entries share the id "${id}"` });
      else if (seen.has(v)) issues.push({ index: i, message: `version ${v} of "${id}" is declared twice (also agents[${seen.get(v)}])` });
      else seen.set(v, i);
    }
  }
  return issues;
}
