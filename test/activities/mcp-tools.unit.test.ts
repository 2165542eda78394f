/**
 * MCP servers as tool sources (activities/agents/mcp-tools.ts, mcp-pool.ts) against real
 * servers built with the official SDK: a stdio process and a streamable-HTTP server on
 * loopback (test/fixtures/mcp). Timeouts, caps, listing errors, the address policy, reuse.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpPool } from '../../activities/agents/mcp-pool';
import { createMcpToolSource, MCP_LIMITS } from '../../activities/agents/mcp-tools';
import { McpServerSchema } from '../../schemas';
import { startTestMcpHttp, type TestMcpHttp } from '../fixtures/mcp/servers';

const signal = () => AbortSignal.timeout(30_000);
/** The stdio fixture as an agents file would start it. */
const stdio = (extra: object = {}, env: Record<string, string> = {}) =>
  McpServerSchema.parse({
    id: 'files',
    stdio: { command: process.execPath, args: ['--import', 'tsx', 'test/fixtures/mcp/stdio-server.ts'], env },
    ...extra,
  });
const loopback = { policy: { allowLoopback: true } };
const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

let http: TestMcpHttp;
beforeAll(async () => {
  http = await startTestMcpHttp();
});
afterAll(() => http.close());
const httpServer = (extra: object = {}) => McpServerSchema.parse({ id: 'web', http: { url: http.url }, ...extra });

describe('a stdio MCP server', () => {
  it('lists its tools and runs one, with ${ENV} expanded into its environment; the connection is reused, and closing the pool ends the process', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-stdio-'));
    const pool = createMcpPool();
    const server = stdio({}, { MCP_CALLS_FILE: '${TEST_MCP_DIR}/calls.txt' });
    process.env.TEST_MCP_DIR = dir;
    try {
      const t0 = performance.now();
      const tools = await pool.source(server).list(signal());
      const connected = performance.now();
      expect(tools.map((t) => t.name)).toEqual(['lookup', 'wipe', 'slow', 'big', 'broken']);
      expect(tools[0]).toMatchObject({ description: 'Looks a term up', inputSchema: { type: 'object', properties: { term: {} } } });
      expect(await pool.source(server).call('lookup', { term: 'durable' }, signal())).toBe('definition of durable (stdio-tools)');
      // a later step: list (cached) and call on the same process
      const t1 = performance.now();
      await pool.source(server).list(signal());
      await pool.source(server).call('lookup', { term: 'again' }, signal());
      const reused = performance.now() - t1;
      console.log(
        `stdio MCP: first list (spawn + initialize + tools/list) ${(connected - t0).toFixed(0)} ms; a later step's list + call ${reused.toFixed(1)} ms`,
      );
      const lines = readFileSync(join(dir, 'calls.txt'), 'utf8').trim().split('\n');
      expect(lines).toEqual([expect.stringMatching(/^start \d+$/), 'lookup', 'lookup']);
      expect(pool.size).toBe(1);
      // the worker shuts down: its pool ends the server's process
      await pool.close();
      const pid = Number(lines[0].split(' ')[1]);
      await expect.poll(() => isRunning(pid), { timeout: 5000 }).toBe(false);
    } finally {
      await pool.close();
    }
  });

  it('reports a command that cannot start, and a server that dies, naming the server and its last stderr line', async () => {
    const missing = createMcpToolSource(McpServerSchema.parse({ id: 'gone', stdio: { command: '/no/such/mcp-server' } }));
    await expect(missing.list(signal())).rejects.toThrow(/^MCP server "gone" \(stdio \/no\/such\/mcp-server\) failed to connect: .*ENOENT/);
    const dying = createMcpToolSource(
      McpServerSchema.parse({
        id: 'dies',
        stdio: { command: process.execPath, args: ['-e', 'console.error("bad token for the index"); process.exit(3)'] },
      }),
    );
    await expect(dying.list(signal())).rejects.toThrow(
      /MCP server "dies" \(stdio .*\) failed to connect: .*\(its stderr: bad token for the index\)/,
    );
    await missing.close();
    await dying.close();
  });
});

describe('a streamable-HTTP MCP server', () => {
  it('runs tools on one session across steps', async () => {
    const pool = createMcpPool(loopback);
    const before = http.sessions;
    const t0 = performance.now();
    await pool.source(httpServer()).list(signal());
    const connected = performance.now();
    expect(await pool.source(httpServer()).call('lookup', { term: 'lane' }, signal())).toBe('definition of lane (http-tools)');
    const t1 = performance.now();
    for (let i = 0; i < 5; i++) await pool.source(httpServer()).call('lookup', { term: `t${i}` }, signal());
    console.log(
      `HTTP MCP: first list (initialize + tools/list) ${(connected - t0).toFixed(0)} ms; a later call ${((performance.now() - t1) / 5).toFixed(1)} ms`,
    );
    expect(http.sessions - before).toBe(1);
    await pool.close();
  });

  it('passes a tool error to the model as text', async () => {
    const source = createMcpToolSource(httpServer(), loopback);
    expect(await source.call('broken', {}, signal())).toBe('error: the index is offline');
    await source.close();
  });

  it('fails a call past its timeout, retryably, and the connection keeps serving', async () => {
    const source = createMcpToolSource(httpServer({ callTimeoutSeconds: 0.2 }), loopback);
    const t0 = performance.now();
    await expect(source.call('slow', { ms: 3000 }, signal())).rejects.toMatchObject({
      name: 'AgentRetryableError',
      message: 'tool web.slow timed out after 0.2 s',
    });
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(await source.call('slow', { ms: 1 }, signal())).toBe('slept 1 ms');
    await source.close();
  });

  it('caps what the model reads at 20 000 characters, saying how much was cut', async () => {
    const source = createMcpToolSource(httpServer(), loopback);
    const text = await source.call('big', { chars: 50_000 }, signal());
    expect(text.length).toBeLessThanOrEqual(MCP_LIMITS.outputChars);
    expect(text).toMatch(/^x+\n\[truncated: \d+ more characters\]$/);
    expect(Number(/(\d+) more/.exec(text)![1]) + text.indexOf('\n')).toBe(50_000);
    await source.close();
  });

  it('refuses a message over the byte cap (stdio and HTTP) instead of buffering it', async () => {
    const web = createMcpToolSource(httpServer(), { ...loopback, messageBytes: 64 * 1024 });
    await expect(web.call('big', { chars: 200_000 }, signal())).rejects.toThrow(
      /MCP server "web" \(http\) failed calling big: .*65536 bytes/,
    );
    await web.close();
    const files = createMcpToolSource(stdio(), { messageBytes: 64 * 1024 });
    await expect(files.call('big', { chars: 200_000 }, signal())).rejects.toThrow(/MCP server "files" \(stdio .*\) failed calling big/);
    await files.close();
  });

  it('refuses loopback, private and rebinding addresses under the strict policy, finally', async () => {
    const strict = createMcpToolSource(httpServer());
    await expect(strict.list(signal())).rejects.toMatchObject({
      name: 'AgentFatalError',
      message: 'MCP server "web" (http) refused by the MCP address policy: a loopback address',
    });
    const privateUrl = createMcpToolSource(McpServerSchema.parse({ id: 'intranet', http: { url: 'http://10.1.2.3:8080/mcp' } }), loopback);
    await expect(privateUrl.list(signal())).rejects.toThrow(/refused by the MCP address policy: a private address/);
    // a public-looking name that resolves to loopback is refused when the socket connects
    const port = new URL(http.url).port;
    const named = createMcpToolSource(McpServerSchema.parse({ id: 'rebind', http: { url: `https://tools.example:${port}/mcp` } }), {
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    await expect(named.list(signal())).rejects.toThrow(/refused by the MCP address policy: a loopback address/);
    expect(http.calls).not.toContain('wipe');
  });

  it('reports an endpoint that is not there, naming the server but not its URL', async () => {
    const nowhere = createMcpToolSource(McpServerSchema.parse({ id: 'typo', http: { url: `${http.url}-typo?key=secret` } }), loopback);
    const err = await nowhere.list(signal()).catch((e: Error) => e);
    expect(err).toMatchObject({
      name: 'AgentRetryableError',
      message: expect.stringMatching(/^MCP server "typo" \(http\) failed to connect: .*404/),
    });
    expect((err as Error).message).not.toContain('secret');
  });
});

describe('the pool', () => {
  it('closes a connection idle past idleMs and connects again when a step needs it', async () => {
    const pool = createMcpPool({ ...loopback, idleMs: 100 });
    const before = http.sessions;
    await pool.source(httpServer({ id: 'idle' })).call('lookup', { term: 'a' }, signal());
    expect(pool.size).toBe(1);
    await new Promise((r) => setTimeout(r, 400));
    expect(pool.size).toBe(0);
    await pool.source(httpServer({ id: 'idle' })).call('lookup', { term: 'b' }, signal());
    expect(http.sessions - before).toBe(2);
    await pool.close();
    expect(pool.size).toBe(0);
  });
});
