/**
 * The modules a workflow run evaluates, read from the bundle the worker builds: the SDK's
 * `bundleWorkflowCode` with a webpack plugin that records the module graph, walked along
 * static imports only (a dynamic `import()` is loaded when reached, not with every run).
 * Modules the reusable V8 context preloads (and what they import) are evaluated once per
 * context and shared: no run's cost, but every worker's, and held by it for good; everything
 * else the workflows module and the interceptors reach is evaluated afresh by every run.
 */
import { bundleWorkflowCode } from '@temporalio/worker';
import { relative } from 'node:path';
import { interceptorModules, preloadModules, workflowWebpackConfig, workflowsPath } from '../../workers/bundle';

/** One module a run evaluates: its path (relative to the project, or the package's), its size, and the chain of imports that reached it. */
export interface EagerModule {
  path: string;
  bytes: number;
  via: string[];
}

/** What every run evaluates, what the context evaluates once and shares, and what only a dynamic import loads. */
export interface EagerGraph {
  eager: Map<string, EagerModule>;
  shared: Map<string, EagerModule>;
  lazy: Set<string>;
  bundleBytes: number;
  /** The swc helpers that stand in for syntax Node runs natively (`_object_spread` and the like), by name: none when the code is compiled for Node 20. */
  downlevelHelpers: string[];
}

// what swc writes when it compiles below ES2022: object spread, class fields, private members, async functions
const DOWNLEVEL_HELPER =
  /\bfunction (_(?:object_spread(?:_props)?|define_property|class_private_\w+|async_to_generator|ts_generator|object_without_properties\w*))\(/g;

type Wp = { resource?: string; size?(): number };
type Graph = {
  getOutgoingConnections(m: Wp): Iterable<{ module: Wp | null; dependency: object }>;
  getParentBlock(d: object): object | undefined;
};

/** The packages the SDK itself brings into every workflow run. */
const SDK_PACKAGES = ['@temporalio/workflow/', '@temporalio/common/', 'nexus-rpc/', 'ms/', 'long/'];
/** The project's folders a workflow run may evaluate: workflow modules, the pure rules and the message definitions (contracts/messages.ts). */
const PROJECT_FOLDERS = ['workflows/', 'core/', 'contracts/'];

const label = (root: string, resource: string) => {
  const nm = resource.lastIndexOf('node_modules/');
  return nm >= 0 ? resource.slice(nm + 'node_modules/'.length) : relative(root, resource);
};

/**
 * What a workflow bundle must not evaluate eagerly, per run or once per context: anything outside
 * the SDK's packages and the project's workflow modules and pure rules (zod, ajv, schemas/,
 * activities/, workers/...), each with the chain of imports that reached it; `lazy` modules
 * reached by `import()` are allowed.
 */
export function violations(graph: EagerGraph, folders: readonly string[] = PROJECT_FOLDERS): string[] {
  const out: string[] = [];
  const outside = (p: string) => !SDK_PACKAGES.some((s) => p.startsWith(s)) && !folders.some((f) => p.startsWith(f));
  const heavy = (p: string) => /^(zod|ajv)\//.test(p);
  for (const [where, modules] of [
    ['every workflow run', graph.eager],
    ['every worker context', graph.shared],
  ] as const) {
    for (const m of modules.values()) {
      if (!outside(m.path)) continue;
      // the first module outside reports it, and zod or ajv where they are first reached
      const parent = m.via.at(-2);
      if (parent !== undefined && outside(parent) && !(heavy(m.path) && !heavy(parent))) continue;
      out.push(`${m.path} is evaluated by ${where}: ${m.via.join(' > ')}`);
    }
  }
  return out;
}

/** Bytes of module source in a set of modules: all of it, and the project's own modules. */
export function eagerBytes(modules: Map<string, EagerModule>): { total: number; project: number } {
  let total = 0;
  let project = 0;
  for (const m of modules.values()) {
    total += m.bytes;
    if (PROJECT_FOLDERS.some((p) => m.path.startsWith(p))) project += m.bytes;
  }
  return { total, project };
}

/**
 * Bundles the workflows as the worker does (or `entry` in their place, preloaded as the worker
 * preloads its workflows) and returns what a run evaluates and what the context shares.
 */
export async function eagerWorkflowGraph({
  root = process.cwd(),
  tracing = false,
  entry = workflowsPath,
  preload = preloadModules().map((m) => (m === workflowsPath ? entry : m)),
}: { root?: string; tracing?: boolean; entry?: string; preload?: string[] } = {}): Promise<EagerGraph> {
  const modules = new Map<string, Wp>();
  let graph: Graph | undefined;
  const plugin = {
    apply(compiler: { hooks: { thisCompilation: { tap(n: string, f: (c: unknown) => void): void } } }) {
      compiler.hooks.thisCompilation.tap('eager-graph', (compilation: unknown) => {
        const c = compilation as {
          hooks: { finishModules: { tap(n: string, f: (mods: Iterable<Wp>) => void): void } };
          moduleGraph: Graph;
        };
        c.hooks.finishModules.tap('eager-graph', (mods) => {
          graph = c.moduleGraph;
          for (const m of mods) if (m.resource) modules.set(m.resource, m);
        });
      });
    },
  };
  const bundle = await bundleWorkflowCode({
    workflowsPath: entry,
    workflowInterceptorModules: interceptorModules(tracing),
    preloadModules: preload,
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} } as never,
    webpackConfigHook: (config) => workflowWebpackConfig()({ ...config, plugins: [...(config.plugins ?? []), plugin as never] }),
  });
  const g = graph!;
  const lazy = new Set<string>();
  /** Modules reached from `roots` along static imports, each with the chain that first reached it. */
  const walk = (roots: string[]) => {
    const found = new Map<string, EagerModule>();
    const queue = roots.flatMap((r) => (modules.get(r) ? [{ m: modules.get(r)!, via: [] as string[] }] : []));
    const seen = new Set<Wp>();
    while (queue.length) {
      const { m, via } = queue.shift()!;
      if (seen.has(m)) continue;
      seen.add(m);
      const name = label(root, m.resource!);
      const chain = [...via, name];
      found.set(name, { path: name, bytes: m.size?.() ?? 0, via: chain });
      for (const conn of g.getOutgoingConnections(m)) {
        if (!conn.module?.resource) continue;
        const block = g.getParentBlock(conn.dependency);
        // `import()` in any webpack mode: a block of its own, or (mode "eager") a dependency typed "import() eager"
        const type = (conn.dependency as { type?: string }).type ?? '';
        if (type.startsWith('import()') || (block !== undefined && block !== m && block.constructor.name === 'AsyncDependenciesBlock')) {
          lazy.add(label(root, conn.module.resource));
          continue;
        }
        queue.push({ m: conn.module, via: chain });
      }
    }
    return found;
  };
  const shared = walk(preload);
  const perRun = walk([entry, ...interceptorModules(tracing)]);
  for (const k of shared.keys()) perRun.delete(k);
  for (const k of perRun.keys()) lazy.delete(k);
  for (const k of shared.keys()) lazy.delete(k);
  const downlevelHelpers = [...new Set([...bundle.code.matchAll(DOWNLEVEL_HELPER)].map((m) => m[1]!))].sort();
  return { eager: perRun, shared, lazy, bundleBytes: Buffer.byteLength(bundle.code), downlevelHelpers };
}
