/**
 * A worker's MCP connections: one tool source per server configuration, shared by every step
 * and every agent that names the same server, so a step pays a round trip, not a process
 * start or an HTTP handshake. A source no step has used for `idleMs` is closed (its process
 * ends); `close()` ends them all when the worker shuts down.
 *
 *   step ──source(server)──> pooled (key: the server's config) ──idle ≥ idleMs──> closed
 */
import type { McpServer } from '../../schemas';
import { createMcpToolSource, MCP_LIMITS, type McpToolSourceOptions } from './mcp-tools';
import type { ToolSource } from './tool-source';

/** Options of `createMcpPool`. */
export interface McpPoolOptions extends McpToolSourceOptions {
  /** A connection unused this long is closed. @default MCP_LIMITS.idleMs (60 s) */
  idleMs?: number;
}

/** The MCP connections of one worker process. */
export interface McpPool {
  /** The pooled source of `server` (its `close()` is the pool's business: a no-op). */
  source(server: McpServer): ToolSource;
  /** Servers with a source in the pool now. */
  readonly size: number;
  /** Closes every connection; a source asked for afterwards connects again. */
  close(): Promise<void>;
}

interface Entry {
  source: ToolSource;
  lastUsed: number;
  busy: number;
}

/** A pool of MCP connections with the given address policy and limits. */
export function createMcpPool(opts: McpPoolOptions = {}): McpPool {
  const idleMs = opts.idleMs ?? MCP_LIMITS.idleMs;
  const entries = new Map<string, Entry>();
  let sweeper: NodeJS.Timeout | undefined;

  const sweep = () => {
    const now = Date.now();
    for (const [key, e] of entries)
      if (e.busy === 0 && now - e.lastUsed >= idleMs) {
        entries.delete(key);
        void e.source.close();
      }
    if (entries.size === 0 && sweeper) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };

  const entryFor = (server: McpServer): Entry => {
    const key = JSON.stringify(server);
    let e = entries.get(key);
    if (!e) {
      e = { source: createMcpToolSource(server, opts), lastUsed: Date.now(), busy: 0 };
      entries.set(key, e);
      // the sweeper never keeps a worker alive on its own
      sweeper ??= setInterval(sweep, Math.max(50, Math.min(idleMs / 2, 15_000))).unref();
    }
    return e;
  };

  const using = async <T>(server: McpServer, run: (s: ToolSource) => Promise<T>): Promise<T> => {
    const e = entryFor(server);
    e.busy++;
    try {
      return await run(e.source);
    } finally {
      e.busy--;
      e.lastUsed = Date.now();
    }
  };

  return {
    source: (server) => ({
      list: (signal) => using(server, (s) => s.list(signal)),
      call: (name, args, signal) => using(server, (s) => s.call(name, args, signal)),
      close: async () => undefined,
    }),
    get size() {
      return entries.size;
    },
    async close() {
      const all = [...entries.values()];
      entries.clear();
      if (sweeper) clearInterval(sweeper);
      sweeper = undefined;
      await Promise.all(all.map((e) => e.source.close()));
    },
  };
}

let shared: McpPool | undefined;
/** The process's pool when none is given: the strict address policy, default limits. */
export function defaultMcpPool(): McpPool {
  return (shared ??= createMcpPool());
}
