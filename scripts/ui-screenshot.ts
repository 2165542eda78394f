/**
 * The pictures of the Temporal UI in docs/guides/temporal-ui.md: `npm run ui:screenshot`. Re-run it when the UI's
 * look (or the story) changes; it needs no network.
 *
 * Starts its own dev server with the Web UI, a worker and the API app on free ports in a
 * temp dir, submits the story of ui-story.ts through the API, checks the guide's queries
 * against it, then takes two pictures with Debian's headless chromium (or $CHROMIUM):
 *   docs/temporal-ui-list.png  the job's tree in the workflow list, Delegate's search attributes as columns
 *   docs/temporal-ui-job.png   the job's page: its current details and its children
 * and stops everything. `-- --hold` keeps the stack up afterwards (until Ctrl-C) to look around.
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Page } from 'puppeteer-core';
import { builtinAgents, createAgentRegistry } from '../activities';
import { buildApp } from '../api/app';
import { openRecord } from '../record';
import { loadConfig } from '../config/config';
import { loadTenants } from '../config/tenants';
import { agentQueueFor } from '../core/names';
import { bundleWorkflows, createWorkers } from '../workers/worker';
import { freePort, startDevServer } from './dev-server';
import { expectQuery, LIST_COLUMNS, readmeQueries, STORY_SPEC, STORY_TENANT, storyReady } from './ui-story';

const DOCS = fileURLToPath(new URL('../docs/', import.meta.url));
const NAMESPACE = 'default';
const VIEWPORT = { width: 1440, height: 900, deviceScaleFactor: 1 };

/** Opens `url`, runs `ready` (waits, clicks), lets the UI settle and saves the viewport as docs/<file>. */
async function shoot(page: Page, url: string, file: string, ready: (page: Page) => Promise<unknown>): Promise<void> {
  // a running workflow's page long-polls its history: the network never goes idle
  await page.goto(url, { waitUntil: 'load' });
  await ready(page);
  // the UI animates rows and panels in
  await new Promise((r) => setTimeout(r, 1000));
  await page.screenshot({ path: join(DOCS, file), type: 'png' });
  console.log(`${file}: ${(statSync(join(DOCS, file)).size / 1024).toFixed(0)} KiB`);
}

async function main(): Promise<void> {
  const quiet = () => {};
  // no shutdown signals: the SDK would re-raise Ctrl-C before the dev server is stopped
  Runtime.install({
    shutdownSignals: [],
    logger: { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: quiet, error: (m: string) => console.error(m) } as never,
  });
  const dir = mkdtempSync(join(tmpdir(), 'delegate-ui-'));
  const server = await startDevServer({
    dbFile: join(dir, 'temporal.sqlite'),
    port: await freePort(),
    uiPort: await freePort(),
    logFile: join(dir, 'server.log'),
  });
  const key = `ui-screenshot-${Date.now()}`;
  const config = loadConfig({
    TEMPORAL_ADDRESS: server.address,
    TEMPORAL_UI_URL: server.uiUrl!,
    DELEGATE_TASK_QUEUE: 'delegate-ui',
    DELEGATE_API_KEYS: `${STORY_TENANT}=${key}`,
    DELEGATE_RECORD_FILE: join(dir, 'record.db'),
    LOG_LEVEL: 'silent',
  });
  const tenants = loadTenants(config);
  const record = await openRecord({ sqliteFile: join(dir, 'record.db') });
  const workerConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: NAMESPACE });
  // the shared queue and acme's agent lane, as workers/main.ts serves them
  const lanes = tenants.list().map((t) => ({ taskQueue: agentQueueFor(config.DELEGATE_TASK_QUEUE, t.tenant), slots: t.quotas.agentSlots }));
  const workers = await createWorkers(
    {
      connection: workerConnection,
      namespace: NAMESPACE,
      taskQueue: config.DELEGATE_TASK_QUEUE,
      workflowBundle: await bundleWorkflows(),
      record: record.store,
    },
    lanes,
  );
  const running = Promise.all(workers.map((w) => w.run()));
  const app = await buildApp({ config, client, registry: createAgentRegistry(builtinAgents), tenants, record: record.store });
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    // Ctrl-C during --hold is ours: puppeteer would exit the process before the dev server is stopped
    handleSIGINT: false,
    args: ['--no-sandbox', '--headless=new', '--hide-scrollbars'],
    defaultViewport: VIEWPORT,
  });
  try {
    const res = await app.inject({ method: 'POST', url: '/v1/jobs', headers: { authorization: `Bearer ${key}` }, payload: STORY_SPEC });
    if (res.statusCode !== 202 && res.statusCode !== 201) throw new Error(`POST /v1/jobs: ${res.statusCode} ${res.body}`);
    const { workflowId: root, links } = res.json<{ workflowId: string; links: { temporalUi: string } }>();
    await storyReady(client, root);
    for (const q of readmeQueries(root)) {
      await expectQuery(client, q.query, q.finds);
      console.log(`ok  ${q.what}: ${q.query}  (${q.finds.length})`);
    }

    mkdirSync(DOCS, { recursive: true });
    const page = await browser.newPage();
    // The list's columns: the UI keeps them per namespace in localStorage under
    // `namespace-workflow-table-columns` as `{ [namespace]: [{ label }] }` (UI 2.42: what the
    // column configurator's "+" writes; a search attribute's label is its name). Set before the
    // app boots, it is what an operator gets after adding the columns by hand.
    // Page scripts are strings: this project compiles without the DOM's types.
    const columns = JSON.stringify({ [NAMESPACE]: LIST_COLUMNS.map((label) => ({ label })) });
    await page.evaluateOnNewDocument(`localStorage.setItem('namespace-workflow-table-columns', ${JSON.stringify(columns)})`);
    const shows = (text: string) => (p: Page) =>
      p.waitForFunction(`document.body.innerText.includes(${JSON.stringify(text)})`, { timeout: 30_000 });
    const tree = readmeQueries(root)[0].query;
    await shoot(
      page,
      `${server.uiUrl}/namespaces/${NAMESPACE}/workflows?query=${encodeURIComponent(tree)}`,
      'temporal-ui-list.png',
      async (p) => {
        await shows(`${root}/crawl-pricing`)(p);
        // the saved-views panel takes 230 px the columns need
        await p.click('button[aria-label="Collapse saved views"]');
      },
    );
    // the API's own link to the job, then its "User Metadata" tab: summary, current details and the children with their status
    await shoot(page, links.temporalUi, 'temporal-ui-job.png', async (p) => {
      await p.waitForSelector('a[href$="/user-metadata"]', { timeout: 30_000 });
      await p.click('a[href$="/user-metadata"]');
      await shows('Current Details')(p);
      await shows('deep-dive · sim')(p);
      // the details are rendered in a frame of their own
      await p.waitForFrame((f) => f.url().includes('/render?content=**fanout**'), { timeout: 30_000 });
    });
    if (process.argv.includes('--hold')) {
      console.log(`holding: ${server.uiUrl} (Temporal at ${server.address}); Ctrl-C stops`);
      await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
    }
  } finally {
    await browser.close();
    await app.close();
    for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
    await running.catch((err) => console.error('worker ended with', err));
    await connection.close();
    await workerConnection.close();
    await record.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
