/**
 * A loopback A2A agent for the tests that call one (the SDK's own request handler and Express
 * adapters), and the events and parts its executors publish:
 *
 *   startA2aRemote(executor, cards) ─ listen on 127.0.0.1:0 ─ mount <prefix>/.well-known/agent-card.json
 *                                                           └ /a2a (middleware…, JSON-RPC → executor)
 */
import { Role, TaskState, type AgentCard, type Message, type Part } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import express, { type RequestHandler } from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A text part. */
export const textPart = (value: string): Part => ({
  content: { $case: 'text', value },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

/** A JSON data part. */
export const dataPart = (value: unknown): Part => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});

/** The remote agent's text message on a task. */
export const agentMessage = (messageId: string, taskId: string, contextId: string, text: string): Message => ({
  messageId,
  contextId,
  taskId,
  role: Role.ROLE_AGENT,
  parts: [textPart(text)],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

/** The remote's final answer artifact on a task, with these parts. */
export const answerArtifact = (taskId: string, contextId: string, parts: Part[]) =>
  AgentEvent.artifactUpdate({
    taskId,
    contextId,
    artifact: { artifactId: 'answer', name: 'answer', description: '', parts, metadata: undefined, extensions: [] },
    append: false,
    lastChunk: true,
    metadata: undefined,
  });

/** A status update of a task to `state`, now, with an optional message and metadata. */
export const statusUpdate = (taskId: string, contextId: string, state: TaskState, message?: Message, metadata?: Record<string, unknown>) =>
  AgentEvent.statusUpdate({
    taskId,
    contextId,
    status: { state, message, timestamp: new Date().toISOString() },
    metadata,
  });

/** The card of a loopback agent whose JSON-RPC endpoint is `${base}/a2a`; `extra` overrides any field. */
export const a2aCard = (base: string, streaming: boolean, extra: Partial<AgentCard> = {}): AgentCard => ({
  name: 'remote',
  description: 'a test agent',
  supportedInterfaces: [{ url: `${base}/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
  provider: undefined,
  version: '1.0.0',
  capabilities: { streaming, pushNotifications: false, extensions: [], extendedAgentCard: false },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
  signatures: [],
  ...extra,
});

/** A running loopback A2A agent. */
export interface A2aRemote {
  /** Its base URL: a card of prefix `p` is at `${base}${p}/.well-known/agent-card.json`. */
  base: string;
  close(): Promise<void>;
}

/**
 * Starts `executor` as an A2A agent on a free loopback port: a card at
 * `<prefix>/.well-known/agent-card.json` for each entry of `cards` (the request handler serves the
 * first), and JSON-RPC at `/a2a` behind `middleware`. It listens before the routes are mounted,
 * because the cards name its address.
 */
export async function startA2aRemote(
  executor: AgentExecutor,
  cards: Record<string, (base: string) => AgentCard>,
  middleware: RequestHandler[] = [],
): Promise<A2aRemote> {
  const web = express();
  const server = await new Promise<Server>((r) => {
    const s = web.listen(0, '127.0.0.1', () => r(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  for (const [prefix, card] of Object.entries(cards))
    web.use(`${prefix}/.well-known/agent-card.json`, agentCardHandler({ agentCardProvider: async () => card(base) }));
  if (middleware.length) web.use('/a2a', ...middleware);
  const first = Object.values(cards)[0]!;
  const requestHandler = new DefaultRequestHandler(first(base), new InMemoryTaskStore(), executor);
  web.use('/a2a', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  return {
    base,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
