/**
 * MCP servers as tool sources, on the official SDK's client: a command the worker starts and
 * talks to over stdio, or a streamable-HTTP endpoint reached through the MCP address policy.
 * A worker keeps one connection per server configuration and reuses it across steps; a pool
 * closes connections idle for a minute, and all of them when the worker shuts down.
 *
 *   step ──pool.source(server)──> connection (reused | connect: spawn/HTTP + initialize)
 *        ──list (cached until the server says its list changed)──> tools
 *        ──call(name, args) ≤ callTimeoutSeconds──> text ≤ 20 000 characters
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '../../schemas';
import { AgentFatalError, AgentRetryableError } from '../errors';
import { guardedFetch } from '../guarded-fetch';
import { DestinationRefusedError, type Resolver } from '../guarded-post';
import type { NetPolicy } from '../net-policy';
import { expandEnv } from './remote';
import type { OfferedTool, ToolSource } from './tool-source';

/** The limits of MCP tools; each can be lowered per source (tests do). */
export const MCP_LIMITS = {
  /** Characters of one tool answer handed to the model (the rest is cut with a note), as for HTTP tools. */
  outputChars: 20_000,
  /** Bytes of one message from a server (stdio line, HTTP response body): past it the call fails. */
  messageBytes: 1 << 20,
  /** Tools read from one server (pages of `tools/list` followed until then). */
  maxTools: 500,
  /** A pooled connection unused this long is closed. */
  idleMs: 60_000,
} as const;

/** Options of `createMcpToolSource` and `createMcpPool`. */
export interface McpToolSourceOptions {
  /** Where HTTP servers may be reached. @default loopback, private, link-local and metadata addresses refused */
  policy?: NetPolicy;
  /** Resolves HTTP servers' names (tests pass a stub). @default the system resolver */
  resolve?: Resolver;
  /** Where `${VAR}` in env and headers is read. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** @default MCP_LIMITS.outputChars */
  outputChars?: number;
  /** @default MCP_LIMITS.messageBytes */
  messageBytes?: number;
}

/** How a server is named in messages: its id and transport, never its URL (a query may carry a key) or its env. */
function describe(server: McpServer): string {
  return server.stdio ? `MCP server "${server.id}" (stdio ${server.stdio.command})` : `MCP server "${server.id}" (http)`;
}

function expandAll(values: Record<string, string>, env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, expandEnv(v, env)]));
}

function refusalIn(err: unknown): DestinationRefusedError | undefined {
  for (let e = err; e instanceof Error; e = e.cause) if (e instanceof DestinationRefusedError) return e;
  return undefined;
}

/** `p`, or the signal's reason once it aborts (`p` goes on for whoever else waits on it). */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The text the model reads of a call's result: its text parts (structured content when it has none), cut at `max`. */
export function resultText(result: CallToolResult, max: number = MCP_LIMITS.outputChars): string {
  const parts = (result.content ?? []).map((c) => {
    if (c.type === 'text') return c.text;
    if (c.type === 'resource') return 'text' in c.resource ? c.resource.text : `[resource ${c.resource.uri}]`;
    if (c.type === 'resource_link') return `[resource ${c.uri}]`;
    return `[${c.type} ${c.mimeType}]`;
  });
  let text = parts.join('\n');
  if (!text && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  if (result.isError) text = `error: ${text}`;
  if (text.length <= max) return text;
  // the note counts in the cap: what the model reads is never longer than `max`
  const note = (kept: number) => `\n[truncated: ${text.length - kept} more characters]`;
  const kept = Math.max(0, max - note(max).length);
  return `${text.slice(0, kept)}${note(kept)}`.slice(0, max);
}

/** One MCP server as a tool source: connects on first use, reconnects after the connection drops. */
export function createMcpToolSource(server: McpServer, opts: McpToolSourceOptions = {}): ToolSource {
  const env = opts.env ?? process.env;
  const what = describe(server);
  const messageBytes = opts.messageBytes ?? MCP_LIMITS.messageBytes;
  let connecting: Promise<Client> | undefined;
  let tools: OfferedTool[] | undefined;
  let stderrTail = '';
  let transportError: string | undefined;
  /** The calls running now: a message over the cap fails them at once rather than at their timeout. */
  const inflight = new Set<AbortController>();

  const transportFor = (): Transport => {
    if (server.stdio) {
      const t = new StdioClientTransport({
        command: server.stdio.command,
        args: server.stdio.args,
        env: expandAll(server.stdio.env, env),
        cwd: server.stdio.cwd,
        stderr: 'pipe',
        maxBufferSize: messageBytes,
      });
      // the last words of a server that dies: they go into the error a step reports
      t.stderr?.on('data', (chunk: Buffer) => (stderrTail = (stderrTail + chunk.toString('utf8')).slice(-300)));
      return t;
    }
    const http = server.http!;
    return new StreamableHTTPClientTransport(new URL(http.url), {
      fetch: guardedFetch({
        policy: opts.policy ?? {},
        resolve: opts.resolve,
        maxResponseBytes: messageBytes,
        onOversize: (err) => inflight.forEach((c) => c.abort(err)),
      }),
      requestInit: { headers: expandAll(http.headers, env), redirect: 'error' },
    });
  };

  /** An error of this server, worded for the step's result: refused by policy is final, the rest retryable. */
  const failure = (doing: string, err: unknown): Error => {
    const refused = refusalIn(err);
    if (refused) return new AgentFatalError(`${what} ${refused.message.replace(/^refused/, 'refused by the MCP address policy')}`);
    const said = stderrTail.trim().split('\n').pop();
    // an HTTP error by its status only: the body may echo a key (as postJson reports agents)
    let why = err instanceof StreamableHTTPError ? `HTTP ${err.code}` : err instanceof Error ? err.message : String(err);
    // the SDK's "connection closed" hides why it closed: the transport said it first
    if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed && transportError) why += ` (${transportError})`;
    return new AgentRetryableError(`${what} failed ${doing}: ${why}${said ? ` (its stderr: ${said})` : ''}`);
  };

  /** The server's connection, shared by every step of this worker (not tied to one step's signal: another step may be waiting on it). */
  const connect = (signal: AbortSignal): Promise<Client> => {
    if (!connecting) {
      // what an earlier connection said is not this one's story
      stderrTail = '';
      transportError = undefined;
      const client = new Client({ name: 'delegate', version: '1.0.0' });
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        tools = undefined;
      });
      client.onerror = (err) => (transportError = err.message.slice(0, 300));
      const attempt = client.connect(transportFor(), { timeout: server.connectTimeoutSeconds * 1000 }).then(() => client);
      connecting = attempt;
      // a dropped connection is forgotten: the next step connects again
      client.onclose = () => {
        if (connecting === attempt) connecting = undefined;
        tools = undefined;
      };
      attempt.catch(() => {
        if (connecting === attempt) connecting = undefined;
        void client.close().catch(() => undefined);
      });
    }
    return untilAborted(connecting, signal);
  };

  const listAll = async (client: Client, signal: AbortSignal): Promise<OfferedTool[]> => {
    const found: OfferedTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout: server.connectTimeoutSeconds * 1000, signal });
      for (const t of page.tools) found.push({ name: t.name, description: t.description, inputSchema: t.inputSchema });
      cursor = page.nextCursor;
    } while (cursor && found.length < MCP_LIMITS.maxTools);
    return found.slice(0, MCP_LIMITS.maxTools);
  };

  return {
    async list(signal) {
      if (tools) return tools;
      let doing = 'to connect';
      try {
        const client = await connect(signal);
        doing = 'to list its tools';
        tools = await listAll(client, signal);
        return tools;
      } catch (err) {
        if (signal.aborted) throw err;
        throw failure(doing, err);
      }
    },
    async call(name, args, signal) {
      const timeoutMs = server.callTimeoutSeconds * 1000;
      const call = new AbortController();
      const onStepAbort = () => call.abort(signal.reason);
      signal.addEventListener('abort', onStepAbort, { once: true });
      inflight.add(call);
      try {
        const client = await connect(signal);
        const result = (await client.callTool({ name, arguments: args }, undefined, {
          timeout: timeoutMs,
          signal: call.signal,
        })) as CallToolResult;
        return resultText(result, opts.outputChars);
      } catch (err) {
        if (signal.aborted) throw err;
        if (call.signal.aborted) throw failure(`calling ${name}`, call.signal.reason);
        if (err instanceof McpError && err.code === ErrorCode.RequestTimeout)
          throw new AgentRetryableError(`tool ${server.id}.${name} timed out after ${server.callTimeoutSeconds} s`);
        throw failure(`calling ${name}`, err);
      } finally {
        inflight.delete(call);
        signal.removeEventListener('abort', onStepAbort);
      }
    },
    async close() {
      const open = connecting;
      connecting = undefined;
      tools = undefined;
      const client = await open?.catch(() => undefined);
      await client?.close().catch(() => undefined);
    },
  };
}
