/**
 * What the spend tests share: the fake provider, a dedicated worker over LLM agents on it, and an
 * API app on that worker's queue (tenant `default`), started in a file's beforeAll and stopped in
 * its afterAll. Each file names its own agents (models at prices, limits, wrong answers).
 */
import type { FastifyInstance } from 'fastify';
import { builtinAgents, createAgentRegistry, type AgentRegistry } from '../activities';
import type { AgentDefinition } from '../activities/agents/types';
import { createLlmAgent } from '../activities/agents/llm';
import { fakeProviderAgent, startFakeProvider, type FakeProvider, type FakeProviderOptions } from '../scripts/fake-provider';
import { startDedicatedWorker } from './dedicated-worker';
import { fastRetry, testApp } from './helpers';

/** The running parts; `stop()` ends them in the order they depend on each other. */
export interface FakeProviderStack {
  fake: FakeProvider;
  worker: Awaited<ReturnType<typeof startDedicatedWorker>>;
  app: FastifyInstance;
  registry: AgentRegistry;
  stop(): Promise<void>;
}

/** Starts the fake with `options`, then a worker and an app (its configuration `appEnv` added) over the builtin agents and `agents(fake's url)`. */
export async function startFakeProviderStack(
  options: FakeProviderOptions,
  agents: (url: string) => AgentDefinition[],
  appEnv: Record<string, string> = {},
): Promise<FakeProviderStack> {
  const fake = await startFakeProvider(options);
  const registry = createAgentRegistry([...builtinAgents, ...agents(fake.url)]);
  const worker = await startDedicatedWorker({ registry, lanes: ['default'] });
  const app = await testApp({ ...appEnv, DELEGATE_TASK_QUEUE: worker.taskQueue }, 'default', undefined, registry);
  return {
    fake,
    worker,
    app,
    registry,
    async stop() {
      await app.close();
      await worker.stop();
      await fake.stop();
    },
  };
}

/** An LLM agent on the fake at a price per million tokens (input and output alike), one short turn per step. */
export function pricedModel(url: string, id: string, perMTok: number, extra: Record<string, unknown> = {}): AgentDefinition {
  return createLlmAgent(
    fakeProviderAgent(url, id, {
      maxTokensPerStep: 16,
      retry: fastRetry,
      pricing: { inputPerMTok: perMTok, outputPerMTok: perMTok },
      ...extra,
    }),
  );
}
