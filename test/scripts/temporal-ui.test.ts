/**
 * The cluster's Web UI (scripts/temporal-ui.ts): the UI server built from its Go module, started on
 * deploy/temporal-ui.yaml against the run's Temporal server, shows that server's namespaces and
 * workflows through its HTTP API, takes a browser-style write (CSRF cookie + header), and is gone
 * after stop().
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import { freePort } from '../../scripts/dev-server';
import { startTemporalUi, type TemporalUi } from '../../scripts/temporal-ui';
import { pollUntil, testClient, uniqueId } from '../helpers';

/** The subset of the UI API's ListWorkflowExecutions answer the tests read. */
interface WorkflowList {
  executions?: { execution: { workflowId: string; runId: string }; type: { name: string }; status: string; taskQueue: string }[];
}

const dir = mkdtempSync(join(tmpdir(), 'delegate-ui-'));
const logFile = join(dir, 'ui.log');
let ui: TemporalUi;

beforeAll(async () => {
  ui = await startTemporalUi({
    temporalAddress: inject('temporalAddress'),
    port: await freePort(),
    logFile,
    corsOrigins: ['http://localhost:3000'],
  });
}, 600_000 /* a first run builds the UI server (about 1.5 min on 2 cores) */);
afterAll(async () => {
  await ui?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const getJson = async <T>(path: string): Promise<T> => {
  const res = await fetch(`${ui.url}${path}`);
  expect(res.status, `GET ${path}`).toBe(200);
  return (await res.json()) as T;
};

/** The run's executions with `workflowId`, as the UI's workflow list shows them. */
const listed = (workflowId: string) =>
  getJson<WorkflowList>(`/api/v1/namespaces/default/workflows?query=${encodeURIComponent(`WorkflowId="${workflowId}"`)}`).then(
    (l) => l.executions ?? [],
  );

describe('Temporal UI server', () => {
  it('serves the UI and its settings from deploy/temporal-ui.yaml: auth and codec off, the given origins', async () => {
    const page = await fetch(`${ui.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<html/i);
    const settings = await getJson<{ Auth: { Enabled: boolean }; Codec: { Endpoint: string }; DefaultNamespace: string; Version: string }>(
      '/api/v1/settings',
    );
    expect(settings).toMatchObject({ Auth: { Enabled: false }, Codec: { Endpoint: '' }, DefaultNamespace: 'default', Version: '2.42.1' });
    // CORS: the Delegate API's origin may call it, another may not
    const allowed = await fetch(`${ui.url}/api/v1/settings`, { headers: { origin: 'http://localhost:3000' } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    const other = await fetch(`${ui.url}/api/v1/settings`, { headers: { origin: 'http://elsewhere.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it("lists the server's namespaces and a workflow started in this test, with its type and status", async () => {
    const namespaces = await getJson<{ namespaces: { namespaceInfo: { name: string } }[] }>('/api/v1/namespaces');
    expect(namespaces.namespaces.map((n) => n.namespaceInfo.name)).toContain('default');

    const client = await testClient();
    const workflowId = uniqueId('ui-probe');
    // a task queue no worker polls: the workflow stays running until terminated
    const handle = await client.workflow.start('uiProbe', { workflowId, taskQueue: uniqueId('ui-idle') });
    onTestFinished(() =>
      handle.terminate('test over').then(
        () => undefined,
        () => undefined,
      ),
    );
    await pollUntil(async () => (await listed(workflowId)).length > 0, `${workflowId} never listed by the UI`);
    expect(await listed(workflowId)).toEqual([
      expect.objectContaining({
        execution: { workflowId, runId: handle.firstExecutionRunId },
        type: { name: 'uiProbe' },
        status: 'WORKFLOW_EXECUTION_STATUS_RUNNING',
      }),
    ]);

    // a write as the browser makes it: the CSRF cookie of a GET, echoed in a header
    const terminate = (headers: Record<string, string>) =>
      fetch(`${ui.url}/api/v1/namespaces/default/workflows/${encodeURIComponent(workflowId)}/terminate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ reason: 'ui test' }),
      });
    expect((await terminate({})).status).toBe(400); // no CSRF token: refused, nothing changed
    expect((await handle.describe()).status.name).toBe('RUNNING');
    const cookie = (await fetch(`${ui.url}/api/v1/settings`)).headers.getSetCookie().find((c) => c.startsWith('_csrf='));
    expect(cookie, 'a _csrf cookie').toBeDefined();
    // served over plain HTTP: the cookie must not be Secure, or a browser would drop it
    expect(cookie).not.toMatch(/;\s*secure/i);
    const token = cookie!.split(';')[0].slice('_csrf='.length);
    expect((await terminate({ cookie: `_csrf=${token}`, 'x-csrf-token': token })).status).toBe(200);
    expect((await handle.describe()).status.name).toBe('TERMINATED');
  });

  it('stop() ends the process and frees the port', async () => {
    const { pid } = ui.process;
    await ui.stop();
    expect(ui.process.exitCode !== null || ui.process.signalCode !== null).toBe(true);
    expect(() => process.kill(pid!, 0)).toThrow(/ESRCH/);
    await expect(fetch(`${ui.url}/healthz`)).rejects.toThrow();
    // and it had logged the requests it served
    expect(readFileSync(logFile, 'utf8')).toContain('/api/v1/namespaces');
  });

  it('a second UI on a taken port is refused, not mistaken for ready because the first one answers', async () => {
    const first = await startTemporalUi({ temporalAddress: inject('temporalAddress'), port: await freePort(), logFile });
    try {
      await expect(
        startTemporalUi({ temporalAddress: inject('temporalAddress'), port: Number(new URL(first.url).port), logFile }),
      ).rejects.toThrow(`the Temporal UI cannot listen on ${first.url}: the port is in use`);
      expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
    } finally {
      await first.stop();
    }
  });

  it('a port fetch and browsers refuse (10080) is refused at once, not after the 60 s readiness probe', async () => {
    const began = Date.now();
    await expect(startTemporalUi({ temporalAddress: inject('temporalAddress'), port: 10080, logFile })).rejects.toThrow(
      'the Temporal UI cannot be served on http://127.0.0.1:10080: fetch and browsers refuse port 10080 (https://fetch.spec.whatwg.org/#port-blocking)',
    );
    expect(Date.now() - began).toBeLessThan(2_000);
  });

  it('a UI server that exits at start (a broken config) is reported with its log named', async () => {
    const broken = join(dir, 'broken.yaml');
    writeFileSync(broken, 'port: [not a number\n');
    const port = await freePort();
    await expect(startTemporalUi({ temporalAddress: inject('temporalAddress'), port, logFile, configFile: broken })).rejects.toThrow(
      `the Temporal UI server exited before it answered on http://127.0.0.1:${port}; see ${logFile}`,
    );
    expect(readFileSync(logFile, 'utf8')).toMatch(/config file corrupted/);
  });
});
