/**
 * The tenants of a deployment: who may call the API (by key), what each may use (quotas),
 * and which agent lane serves each. The API and the worker both load it from the same
 * configuration, so every tenant the API admits has a lane a worker polls.
 *
 *   DELEGATE_API_KEYS="acme=k1,beta=k2"  ─┐
 *   DELEGATE_API_KEYS_FILE (hashes)       ─┴─> TenantDirectory ──> authenticate(key) → tenant
 *                                                                 └─> quotas(tenant), lanes()
 *   the keys file changes ──watchTenants (fs.watch + stat every 2 s)──> TenantDirectory again
 */
import { createHash } from 'node:crypto';
import { watch, type FSWatcher } from 'chokidar';
import { readFileSync, statSync } from 'node:fs';
import { KeysFileSchema, TenantIdSchema, type Config, type Quotas } from '../schemas';

/** A tenant's quotas with the deployment's defaults filled in. */
export type TenantQuotas = Required<Quotas>;

/** One tenant as the deployment knows it. */
export interface TenantPolicy {
  tenant: string;
  quotas: TenantQuotas;
}

/** Who may call, and with what limits. */
export interface TenantDirectory {
  /** `off` only when DELEGATE_AUTH=off: every caller is tenant `default`. */
  readonly auth: 'on' | 'off';
  /** The tenant a bearer key belongs to; undefined for an unknown key. */
  authenticate(key: string): string | undefined;
  /** A tenant's policy (quotas); undefined for a tenant the deployment does not know. */
  get(tenant: string): TenantPolicy | undefined;
  /** Every tenant (the worker serves one agent lane per tenant). */
  list(): TenantPolicy[];
}

/** The tenant every caller is when auth is off. */
export const DEFAULT_TENANT = 'default';

/** Hex SHA-256 of a key: the only form in which keys are kept. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

function defaults(config: Config): TenantQuotas {
  return {
    requestsPerMinute: config.DELEGATE_QUOTA_REQUESTS_PER_MINUTE,
    runningJobs: config.DELEGATE_QUOTA_RUNNING_JOBS,
    tasksPerJob: config.DELEGATE_QUOTA_TASKS_PER_JOB,
    agentSlots: config.DELEGATE_QUOTA_AGENT_SLOTS,
    fairnessWeight: 1,
  };
}

/** Reads the keys file; throws naming the bad field. */
function readKeysFile(path: string) {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read DELEGATE_API_KEYS_FILE ${path}: ${(err as Error).message}`);
  }
  const parsed = KeysFileSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid DELEGATE_API_KEYS_FILE ${path}:\n${lines.join('\n')}`);
  }
  return parsed.data.tenants;
}

/** Parses `tenant=key,tenant=key`; throws naming the variable (never echoing a key). */
function parseKeyPairs(text: string): { tenant: string; hash: string }[] {
  return text.split(',').map((pair, i) => {
    const at = pair.indexOf('=');
    const tenant = pair.slice(0, at).trim();
    const key = pair.slice(at + 1).trim();
    if (!TenantIdSchema.safeParse(tenant).success) throw new Error(`DELEGATE_API_KEYS: pair ${i + 1} has an invalid tenant id "${tenant}"`);
    if (key.length < 16) throw new Error(`DELEGATE_API_KEYS: the key of tenant "${tenant}" is shorter than 16 characters`);
    if (!/^[\x21-\x7e]+$/.test(key))
      throw new Error(
        `DELEGATE_API_KEYS: the key of tenant "${tenant}" has characters outside printable ASCII (a bearer header cannot carry them)`,
      );
    return { tenant, hash: hashKey(key) };
  });
}

/** Loads the tenants from the configuration (keys, keys file, quotas); entry points only. */
export function loadTenants(config: Config): TenantDirectory {
  const base = defaults(config);
  const byHash = new Map<string, string>();
  const policies = new Map<string, TenantPolicy>();
  const addKey = (hash: string, tenant: string, where: string) => {
    const owner = byHash.get(hash);
    // one key, two tenants: which tenant a caller is would depend on load order
    if (owner !== undefined && owner !== tenant)
      throw new Error(`${where}: a key of tenant "${tenant}" is also a key of tenant "${owner}"`);
    byHash.set(hash, tenant);
  };
  const add = (tenant: string, quotas: Quotas = {}) => {
    const prev = policies.get(tenant)?.quotas ?? base;
    policies.set(tenant, { tenant, quotas: { ...prev, ...quotas } });
  };
  if (config.DELEGATE_AUTH === 'off') {
    add(DEFAULT_TENANT);
  } else {
    for (const { tenant, hash } of config.DELEGATE_API_KEYS ? parseKeyPairs(config.DELEGATE_API_KEYS) : []) {
      addKey(hash, tenant, 'DELEGATE_API_KEYS');
      add(tenant);
    }
    for (const entry of config.DELEGATE_API_KEYS_FILE ? readKeysFile(config.DELEGATE_API_KEYS_FILE) : []) {
      for (const h of entry.keySha256) addKey(h, entry.tenant, 'DELEGATE_API_KEYS_FILE');
      add(entry.tenant, entry.quotas);
    }
  }
  return {
    auth: config.DELEGATE_AUTH,
    authenticate: (key) => (config.DELEGATE_AUTH === 'off' ? DEFAULT_TENANT : byHash.get(hashKey(key))),
    get: (tenant) => policies.get(tenant),
    list: () => [...policies.values()],
  };
}

/** Options of `watchFile`. */
export interface WatchFileOptions {
  /** How often the file's stat is compared, for changes fs.watch misses (network mounts, a replaced directory). @default 2000 */
  intervalMs?: number;
  /** Quiet time before `onChange`, so one save of several writes is one change. @default 200 */
  settleMs?: number;
  /** Watch with chokidar (fs.watch) too; false leaves the stat alone (what a file system without inotify gets). @default true */
  fsWatch?: boolean;
}

/**
 * Calls `onChange` when the file at `path` changes: chokidar's watch (an editor or a deploy tool
 * replaces the file by renaming another over it, which a plain fs.watch of the file stops
 * seeing; chokidar follows it), and a periodic stat as the fallback where fs.watch says nothing
 * (network mounts). Both only wake a check: the file's stat decides whether it changed.
 */
export function watchFile(
  path: string,
  onChange: () => void,
  { intervalMs = 2000, settleMs = 200, fsWatch = true }: WatchFileOptions = {},
): { close(): void } {
  const signature = () => {
    try {
      const st = statSync(path);
      return `${st.ino}:${st.size}:${st.mtimeMs}`;
    } catch {
      return 'missing';
    }
  };
  let last = signature();
  let timer: NodeJS.Timeout | undefined;
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const now = signature();
      if (now === last) return;
      last = now;
      onChange();
    }, settleMs);
    timer.unref();
  };
  let watcher: FSWatcher | undefined;
  if (fsWatch) {
    // its watch starts after a scan: a change made before 'ready' is seen by the check then
    watcher = watch(path, { persistent: false, ignoreInitial: true, atomic: true }).on('all', changed).on('ready', changed);
    // a watch that breaks (no inotify watches left, its directory removed) leaves the stat to notice
    watcher.on('error', () => void watcher?.close());
  }
  const poll = setInterval(() => signature() !== last && changed(), intervalMs);
  poll.unref();
  return {
    close() {
      void watcher?.close();
      clearInterval(poll);
      clearTimeout(timer);
    },
  };
}

/**
 * Follows DELEGATE_API_KEYS_FILE: `onChange` gets the tenants again after each change. A file
 * that does not load (half written, invalid) goes to `onError` and the previous tenants stay.
 * Nothing to follow without a keys file (the tenants of DELEGATE_API_KEYS are fixed).
 */
export function watchTenants(
  config: Config,
  onChange: (tenants: TenantDirectory) => void,
  onError: (err: Error) => void,
  opts?: WatchFileOptions,
): { close(): void } {
  if (!config.DELEGATE_API_KEYS_FILE || config.DELEGATE_AUTH === 'off') return { close() {} };
  return watchFile(
    config.DELEGATE_API_KEYS_FILE,
    () => {
      let tenants: TenantDirectory;
      try {
        tenants = loadTenants(config);
      } catch (err) {
        onError(err as Error);
        return;
      }
      onChange(tenants);
    },
    opts,
  );
}
