/**
 * The tree a tenant's scouts may read, from the parsed configuration: `DELEGATE_SCOUT_ROOTS`
 * names a tenant's own, `DELEGATE_SCOUT_ROOT` the deployment's, and neither means scouts are off.
 * Never the working directory: that is where `.data/api-key` and the keys and agents files live.
 * The entry points build the look-up once (`scoutRootsOf(config)`) and pass it to where the
 * scout agent, the LLM agents' host tools and the scout's commit are created; nothing here reads
 * the environment.
 */
import { isAbsolute } from 'node:path';
import type { Config } from '../../schemas';

/** The scout's settings of the configuration (API and workers must agree). */
export type ScoutRootSettings = Partial<Pick<Config, 'DELEGATE_SCOUT_ROOT' | 'DELEGATE_SCOUT_ROOTS'>>;

/** The root a tenant's scouts read (undefined: none is configured, the scout refuses). */
export type ScoutRootFor = (tenant?: string) => string | undefined;

/** The message a scout without a root answers with: what to configure. */
export const NO_SCOUT_ROOT =
  'no scout root is configured: set DELEGATE_SCOUT_ROOT (or DELEGATE_SCOUT_ROOTS per tenant) to the source tree scouts may read';

/** Parses `DELEGATE_SCOUT_ROOTS` (`tenant=/abs/dir,tenant2=/other`); throws naming the variable. */
export function parseScoutRoots(text: string | undefined): Map<string, string> {
  const roots = new Map<string, string>();
  for (const [i, pair] of (text ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .entries()) {
    const at = pair.indexOf('=');
    const tenant = pair.slice(0, at).trim();
    const dir = pair.slice(at + 1).trim();
    if (at <= 0 || !isAbsolute(dir)) throw new Error(`DELEGATE_SCOUT_ROOTS: pair ${i + 1} must be tenant=/absolute/dir`);
    roots.set(tenant, dir);
  }
  return roots;
}

/** The look-up of a tenant's scout root under `settings`, `DELEGATE_SCOUT_ROOTS` parsed once. */
export function scoutRootsOf(settings: ScoutRootSettings): ScoutRootFor {
  const roots = parseScoutRoots(settings.DELEGATE_SCOUT_ROOTS);
  return (tenant) => (tenant === undefined ? undefined : roots.get(tenant)) ?? settings.DELEGATE_SCOUT_ROOT;
}

/** The tree a tenant's scouts may read under `settings` (one look-up; `scoutRootsOf` for many). */
export function scoutRoot(settings: ScoutRootSettings, tenant?: string): string | undefined {
  return scoutRootsOf(settings)(tenant);
}

/** No root for any tenant: scouts are off (a registry built without the configuration). */
export const noScoutRoot: ScoutRootFor = () => undefined;
