/**
 * The dev server's Web UI as `npm start` serves it by default (scripts/ui-read-only.ts): it
 * reads, lists and queries, refuses every write (the audit's terminate with no credential
 * gets 405 and the job keeps running), and tells the UI to hide its write buttons.
 */
import { Client, Connection } from '@temporalio/client';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startDevServer, type DevServer } from '../../scripts/dev-server';
import { READ_ONLY_MESSAGE, readOnlyAllows } from '../../scripts/ui-read-only';
import { pollUntil } from '../helpers';

const dir = mkdtempSync(join(tmpdir(), 'delegate-ui-ro-'));
let server: DevServer;
let connection: Connection;
let client: Client;
let ui: string;

beforeAll(async () => {
  server = await startDevServer({
    dbFile: join(dir, 'temporal.sqlite'),
    port: await freePort(),
    uiPort: await freePort(),
    readOnlyUi: true,
    settings: {},
    logFile: join(dir, 'server.log'),
  });
  connection = await Connection.connect({ address: server.address });
  client = new Client({ connection });
  ui = server.uiUrl!.replace('localhost', '127.0.0.1');
});
afterAll(async () => {
  await connection?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the read-only Temporal UI of npm start', () => {
  it('refuses a terminate sent with no credential (the job keeps running) and every other write, and serves reads', async () => {
    const id = `victim-${Date.now()}`;
    // no worker polls this queue: the job stays running until someone ends it
    await client.workflow.start('delegationJob', { workflowId: id, taskQueue: 'nobody-polls', args: [{}] });
    const api = `${ui}/api/v1/namespaces/default/workflows/${encodeURIComponent(id)}`;
    // an Authorization header, any, skips the UI server's CSRF check: no credential is needed
    const write = (path: string, method = 'POST') =>
      fetch(`${api}${path}`, { method, headers: { authorization: 'x', 'content-type': 'application/json' }, body: '{"reason":"attack"}' });
    for (const path of ['/terminate', '/cancel', '/signal/stop', '/reset']) {
      const res = await write(path);
      expect(res.status, path).toBe(405);
      expect(await res.json()).toEqual({ message: READ_ONLY_MESSAGE });
    }
    expect((await write('', 'DELETE')).status).toBe(405);
    expect((await client.workflow.getHandle(id).describe()).status.name).toBe('RUNNING');

    // reads pass: the page, the workflow, the list
    expect((await fetch(`${ui}/`)).status).toBe(200);
    await pollUntil(async () => (await fetch(api)).status === 200, 'the UI never showed the workflow');
    const listed = await fetch(`${ui}/api/v1/namespaces/default/workflows?query=${encodeURIComponent(`WorkflowId="${id}"`)}`);
    expect(listed.status).toBe(200);
    await client.workflow.getHandle(id).terminate('test over');
  });

  it('tells the UI that writes are off, so it hides their buttons', async () => {
    const res = await fetch(`${ui}/api/v1/settings`, { headers: { 'accept-encoding': 'gzip' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ DisableWriteActions: true, Auth: { Enabled: false } });
  });

  it("lets through what the UI server's own read-only mode does: reads and workflow queries", () => {
    expect(readOnlyAllows('GET', '/api/v1/namespaces/default/workflows')).toBe(true);
    expect(readOnlyAllows('HEAD', '/')).toBe(true);
    expect(readOnlyAllows('POST', '/api/v1/namespaces/default/workflows/job%2Fa/query/status?x=1')).toBe(true);
    expect(readOnlyAllows('POST', '/api/v1/namespaces/default/workflows/job%2Fa/terminate')).toBe(false);
    expect(readOnlyAllows('POST', '/api/v1/namespaces/default/batch-operations/b1')).toBe(false);
    expect(readOnlyAllows('PUT', '/api/v1/namespaces/default/workflows/a/query/x')).toBe(false);
    expect(readOnlyAllows('OPTIONS', '/api/v1/settings')).toBe(false);
  });
});
