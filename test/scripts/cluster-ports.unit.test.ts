/**
 * `npm run cluster`'s ports beside a running `npm start` (issue 56): offset 1000 put the cluster's
 * frontend on the dev server's UI port (8233), and 2000 its UI on 10080, a port fetch refuses, so
 * the UI's readiness probe waited 60 s for nothing. An offset is now checked before anything
 * starts, and an unset one is chosen (scripts/cluster-ports.ts).
 */
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  busyPorts,
  chooseClusterOffset,
  clusterLayout,
  devStackPorts,
  FETCH_BAD_PORTS,
  freeClusterOffset,
  freePortOffset,
  MAX_PORT_OFFSET,
  refusedPorts,
} from '../../scripts/cluster-ports';
import { portFree } from '../../scripts/dev-server';

const held: Server[] = [];
/** Listens on `port` (loopback) until the test ends; false when something else already does. */
async function hold(port: number): Promise<boolean> {
  if (!(await portFree(port))) return false;
  const srv = createServer();
  await new Promise<void>((resolve, reject) => srv.once('error', reject).listen(port, '127.0.0.1', resolve));
  held.push(srv);
  return true;
}
afterEach(async () => {
  await Promise.all(held.splice(0).map((s) => new Promise((r) => s.close(r))));
});

describe("fetch's refused ports", () => {
  it("are the ones this Node's fetch refuses before connecting", async () => {
    const causes = await Promise.all(
      [...FETCH_BAD_PORTS].map((port) =>
        fetch(`http://127.0.0.1:${port}/`).then(
          () => 'answered',
          (err: Error & { cause?: Error }) => err.cause?.message,
        ),
      ),
    );
    expect(new Set(causes)).toEqual(new Set(['bad port']));
    // and its neighbours are tried (refused by the socket, not by fetch)
    const neighbour = await fetch('http://127.0.0.1:10081/').catch((err: Error & { cause?: Error }) => err.cause?.message);
    expect(neighbour).not.toBe('bad port');
  });
});

describe('the cluster port layout', () => {
  it("offset 1000 puts the frontend on npm start's UI port; 2000 puts the UI on 10080, which fetch refuses", () => {
    expect(clusterLayout(1000)).toContainEqual({ port: 8233, what: 'the Temporal frontend' });
    expect(refusedPorts(clusterLayout(1000))).toEqual([]);
    expect(refusedPorts(clusterLayout(2000))).toEqual([
      'the Temporal UI would be on :10080: fetch and browsers refuse port 10080 (https://fetch.spec.whatwg.org/#port-blocking)',
    ]);
    // 3000: the API on 6000 (X11)
    expect(refusedPorts(clusterLayout(3000))[0]).toMatch(/^the API would be on :6000/);
  });

  it("a chosen offset has no refused port and none of npm start's, whatever the worker count", async () => {
    const dev = devStackPorts({}).map((p) => p.port);
    for (const metricsPorts of [0, 2, 16]) {
      const offset = await freeClusterOffset({ metricsPorts }, {});
      const layout = clusterLayout(offset, { metricsPorts });
      expect(refusedPorts(layout)).toEqual([]);
      expect(layout.filter((p) => dev.includes(p.port))).toEqual([]);
      expect(offset).toBeLessThanOrEqual(MAX_PORT_OFFSET);
    }
  });

  it("the tests' random offsets keep off refused ports and the UI's", async () => {
    for (let i = 0; i < 5; i++) {
      const layout = clusterLayout(await freePortOffset(), { apiPort: 0 });
      expect(refusedPorts(layout)).toEqual([]);
      expect(await busyPorts(layout)).toEqual([]);
    }
  });
});

describe('DELEGATE_CLUSTER_PORT_OFFSET', () => {
  it('2000 is refused at once, with the reason and an offset that works', async () => {
    const started = Date.now();
    const err = (await chooseClusterOffset({ metricsPorts: 2 }, { DELEGATE_CLUSTER_PORT_OFFSET: '2000' }).catch((e: Error) => e)) as Error;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(err.message).toMatch(
      /^DELEGATE_CLUSTER_PORT_OFFSET=2000 cannot be used:\n {2}the Temporal UI would be on :10080: fetch and browsers refuse port 10080 \(https:\/\/fetch\.spec\.whatwg\.org\/#port-blocking\)\nDELEGATE_CLUSTER_PORT_OFFSET=\d+ has every port free \(or leave it unset to have one chosen\)\.$/,
    );
  });

  it('a port in use is refused at once, naming it and npm start when it is its port', async () => {
    const offset = await freeClusterOffset({}, {});
    const ui = 8080 + offset;
    expect(await hold(ui)).toBe(true);
    const err = (await chooseClusterOffset(
      {},
      { DELEGATE_CLUSTER_PORT_OFFSET: String(offset), DELEGATE_TEMPORAL_UI_PORT: String(ui) },
    ).catch((e: Error) => e)) as Error;
    expect(err.message).toContain(`:${ui} (the Temporal UI) is in use: npm start's Temporal UI listens there`);
    expect(err.message).not.toMatch(new RegExp(`DELEGATE_CLUSTER_PORT_OFFSET=${offset} has`));
  });

  it('a free offset is taken as it is', async () => {
    const offset = await freeClusterOffset({ metricsPorts: 2 }, {});
    expect(await chooseClusterOffset({ metricsPorts: 2 }, { DELEGATE_CLUSTER_PORT_OFFSET: String(offset) })).toEqual({ offset });
  });

  it('is an integer from 0 to 25000', async () => {
    for (const bad of ['-1', '25001', '1.5', 'ten']) {
      await expect(chooseClusterOffset({}, { DELEGATE_CLUSTER_PORT_OFFSET: bad })).rejects.toThrow(
        `DELEGATE_CLUSTER_PORT_OFFSET: an integer from 0 to 25000, not "${bad}"`,
      );
    }
  });

  it('unset, with the standard ports taken (npm start), one is chosen and said', async () => {
    // 7233 is held here, or already by a dev server: either way it is taken
    await hold(7233);
    const chosen = await chooseClusterOffset({ metricsPorts: 2 }, {});
    expect(chosen.offset).toBeGreaterThan(0);
    expect(chosen.note).toContain(":7233 (the Temporal frontend) is in use: npm start's Temporal dev server listens there");
    expect(chosen.note).toContain(`Using DELEGATE_CLUSTER_PORT_OFFSET=${chosen.offset} instead`);
    expect(refusedPorts(clusterLayout(chosen.offset, { metricsPorts: 2 }))).toEqual([]);
  });
});
