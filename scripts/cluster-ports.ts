/**
 * The ports of `npm run cluster`: Temporal's standard layout, the UI's 8080, the API's 3000 and
 * the workers' metrics from 9464, all shifted by one offset (DELEGATE_CLUSTER_PORT_OFFSET). An
 * offset is usable when no port of it is one that fetch refuses and none is in use; unset, the
 * cluster takes 0 when its ports are free, else the first offset (a multiple of 100) whose ports
 * are free and do not fall on `npm start`'s.
 */
import { portFree } from './dev-server';

/**
 * Ports that fetch (Node's and every browser's) refuses to connect to, before trying: the fetch
 * standard's "bad port" list, https://fetch.spec.whatwg.org/#port-blocking (undici keeps the same
 * list in lib/web/fetch/constants.js but does not export it). A UI on 10080 is never reached, not
 * by the readiness probe and not by a browser. test/scripts/cluster-ports.unit.test.ts checks it
 * against this Node's fetch.
 */
export const FETCH_BAD_PORTS: ReadonlySet<number> = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117,
  119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636,
  989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** Why a port cannot be used by an HTTP server that fetch or a browser must reach, or undefined. */
export function refusedPort(port: number): string | undefined {
  if (FETCH_BAD_PORTS.has(port)) return `fetch and browsers refuse port ${port} (https://fetch.spec.whatwg.org/#port-blocking)`;
  if (!Number.isInteger(port) || port < 1 || port > 65_535) return `${port} is not a port number`;
  return undefined;
}

/** Temporal's server ports, each shifted by `offset`. */
export function clusterPorts(offset = 0) {
  const at = (p: number) => String(p + offset);
  return {
    FRONTEND_GRPC_PORT: at(7233),
    FRONTEND_HTTP_PORT: at(7243),
    FRONTEND_MEMBERSHIP_PORT: at(6933),
    HISTORY_GRPC_PORT: at(7234),
    HISTORY_MEMBERSHIP_PORT: at(6934),
    MATCHING_GRPC_PORT: at(7235),
    MATCHING_MEMBERSHIP_PORT: at(6935),
    WORKER_GRPC_PORT: at(7239),
    WORKER_MEMBERSHIP_PORT: at(6939),
  };
}

/** The highest offset: Temporal keeps membership ports (6933 + offset…) in a smallint column (at most 32767). */
export const MAX_PORT_OFFSET = 25_000;

/** A port and what would listen on it. */
export interface PortUse {
  port: number;
  what: string;
}

/** What besides Temporal's ports the layout holds. */
export interface LayoutOptions {
  /** The API's port (PORT); unset: 3000 + offset; 0: not in the layout. */
  apiPort?: number;
  /** Worker processes, each with a metrics port from 9464 + offset. @default 0 */
  metricsPorts?: number;
  /** The UI's port is 8080 + offset. @default true */
  ui?: boolean;
}

/** Every port the cluster listens on at `offset`. */
export function clusterLayout(offset: number, opts: LayoutOptions = {}): PortUse[] {
  const names: Record<string, string> = {
    FRONTEND_GRPC_PORT: 'the Temporal frontend',
    FRONTEND_HTTP_PORT: "the frontend's HTTP API",
    HISTORY_GRPC_PORT: 'the history service',
    MATCHING_GRPC_PORT: 'the matching service',
    WORKER_GRPC_PORT: "Temporal's worker service",
  };
  const ports: PortUse[] = Object.entries(clusterPorts(offset)).map(([key, port]) => ({
    port: Number(port),
    what: names[key] ?? `a membership port (${key})`,
  }));
  if (opts.ui ?? true) ports.push({ port: 8080 + offset, what: 'the Temporal UI' });
  const api = opts.apiPort ?? 3000 + offset;
  if (api) ports.push({ port: api, what: 'the API' });
  for (let i = 0; i < (opts.metricsPorts ?? 0); i++) ports.push({ port: 9464 + offset + i, what: `worker ${i + 1}'s metrics` });
  return ports;
}

/** What `npm start` listens on (its defaults, or DELEGATE_TEMPORAL_PORT / DELEGATE_TEMPORAL_UI_PORT when set). */
export function devStackPorts(env: NodeJS.ProcessEnv = process.env): PortUse[] {
  return [
    { port: Number(env.DELEGATE_TEMPORAL_PORT || 7233), what: "npm start's Temporal dev server" },
    { port: Number(env.DELEGATE_TEMPORAL_UI_PORT || 8233), what: "npm start's Temporal UI" },
    { port: 3000, what: "npm start's API" },
    { port: 9464, what: "npm start's worker (its metrics)" },
  ];
}

/** The layout's ports that no free port fixes: refused by fetch, or out of range. */
export function refusedPorts(layout: PortUse[]): string[] {
  return layout.flatMap(({ port, what }) => {
    const why = refusedPort(port);
    return why ? [`${what} would be on :${port}: ${why}`] : [];
  });
}

/** The layout's ports something already listens on. */
export async function busyPorts(layout: PortUse[]): Promise<PortUse[]> {
  const free = await Promise.all(layout.map(({ port }) => portFree(port)));
  return layout.filter((_, i) => !free[i]);
}

/** The first offset from 100 up (multiples of 100) whose ports are all free, none refused, none on `npm start`'s. */
export async function freeClusterOffset(opts: LayoutOptions, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const dev = new Set(devStackPorts(env).map((p) => p.port));
  for (let offset = 100; offset <= MAX_PORT_OFFSET; offset += 100) {
    const layout = clusterLayout(offset, opts);
    if (refusedPorts(layout).length || layout.some((p) => dev.has(p.port))) continue;
    if (!(await busyPorts(layout)).length) return offset;
  }
  throw new Error(`no offset up to ${MAX_PORT_OFFSET} has all the cluster's ports free`);
}

/** Says a busy port, and whose it may be. */
function busyLine(use: PortUse, env: NodeJS.ProcessEnv): string {
  const dev = devStackPorts(env).find((d) => d.port === use.port);
  return `:${use.port} (${use.what}) is in use${dev ? `: ${dev.what} listens there` : ''}`;
}

/** The offset `npm run cluster` uses, and what to tell the user about it. */
export interface ChosenOffset {
  offset: number;
  /** Set when the offset was chosen because the standard ports are taken. */
  note?: string;
}

/**
 * The cluster's offset: DELEGATE_CLUSTER_PORT_OFFSET checked (a refused or busy port throws at
 * once, with the reason and a free offset to use instead), or, unset, 0 when its ports are free
 * and else the first free one (`freeClusterOffset`).
 */
export async function chooseClusterOffset(opts: LayoutOptions, env: NodeJS.ProcessEnv = process.env): Promise<ChosenOffset> {
  const raw = env.DELEGATE_CLUSTER_PORT_OFFSET;
  if (raw !== undefined && raw !== '') {
    const offset = Number(raw);
    if (!Number.isInteger(offset) || offset < 0 || offset > MAX_PORT_OFFSET) {
      throw new Error(`DELEGATE_CLUSTER_PORT_OFFSET: an integer from 0 to ${MAX_PORT_OFFSET}, not "${raw}"`);
    }
    const layout = clusterLayout(offset, opts);
    const problems = [...refusedPorts(layout), ...(await busyPorts(layout)).map((u) => busyLine(u, env))];
    if (!problems.length) return { offset };
    const instead = await freeClusterOffset(opts, env).then(
      (o) => `DELEGATE_CLUSTER_PORT_OFFSET=${o} has every port free (or leave it unset to have one chosen).`,
      () => '',
    );
    throw new Error(`DELEGATE_CLUSTER_PORT_OFFSET=${offset} cannot be used:\n${problems.map((p) => `  ${p}`).join('\n')}\n${instead}`);
  }
  const standard = clusterLayout(0, opts);
  const busy = await busyPorts(standard);
  if (!busy.length && !refusedPorts(standard).length) return { offset: 0 };
  const offset = await freeClusterOffset(opts, env);
  const shown = busy.slice(0, 3).map((u) => busyLine(u, env));
  return {
    offset,
    note: `${shown.join('; ')}${busy.length > 3 ? `; and ${busy.length - 3} more` : ''}.\nUsing DELEGATE_CLUSTER_PORT_OFFSET=${offset} instead (every port + ${offset}; set it to choose).`,
  };
}

/**
 * A random offset (1,000–24,000, below the ephemeral range, so free ports handed out to other
 * processes do not land on it) whose Temporal ports and UI port are free, none refused by fetch
 * and none on `npm start`'s: for tests and benches that start a cluster server beside everything else.
 */
export async function freePortOffset(): Promise<number> {
  const dev = new Set(devStackPorts({}).map((p) => p.port));
  for (let tries = 0; tries < 50; tries++) {
    const offset = 1000 + 10 * Math.floor(Math.random() * 2300);
    const layout = clusterLayout(offset, { apiPort: 0 });
    if (refusedPorts(layout).length || layout.some((p) => dev.has(p.port))) continue;
    if (!(await busyPorts(layout)).length) return offset;
  }
  throw new Error('no free port layout for a Temporal server found in 50 tries');
}
