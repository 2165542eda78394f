/**
 * A second Delegate worker process for the providers bench (bench/providers.ts, scenario g): the
 * same agents (their configs as JSON, so both processes build one registry against one fake
 * provider), on the same task queue and lanes, with its own provider gates. Prints READY_LINE once
 * its workers poll; stops on SIGTERM.
 *
 *   TEMPORAL_ADDRESS  BENCH_QUEUE  BENCH_AGENTS (createLlmAgent configs, JSON)  BENCH_LANES (AgentLane[], JSON)
 *   BENCH_BUNDLE_FILE  the workflow bundle's code, as the bench built it (bundling again costs seconds of CPU)
 */
import { NativeConnection } from '@temporalio/worker';
import { readFileSync } from 'node:fs';
import { builtinAgents, createAgentRegistry } from '../activities';
import { createLlmAgent } from '../activities/agents/llm';
import { bundleWorkflows, createWorkers, type AgentLane } from '../workers/worker';
import { benchRecord, quietRuntime } from './lib';

// what the process prints once its workers run (bench/providers.ts waits for it)
const READY_LINE = 'provider worker ready';

const need = (name: string) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};

quietRuntime();
const connection = await NativeConnection.connect({ address: need('TEMPORAL_ADDRESS') });
const agents = (JSON.parse(need('BENCH_AGENTS')) as Parameters<typeof createLlmAgent>[0][]).map((c) => createLlmAgent(c));
const workers = await createWorkers(
  {
    connection,
    namespace: 'default',
    taskQueue: need('BENCH_QUEUE'),
    workflowBundle: process.env.BENCH_BUNDLE_FILE ? { code: readFileSync(process.env.BENCH_BUNDLE_FILE, 'utf8') } : await bundleWorkflows(),
    registry: createAgentRegistry([...builtinAgents, ...agents]),
    record: await benchRecord(),
  },
  JSON.parse(process.env.BENCH_LANES ?? '[]') as AgentLane[],
);
const running = Promise.all(workers.map((w) => w.run()));
console.log(READY_LINE);
process.once('SIGTERM', () => workers.forEach((w) => w.shutdown()));
await running;
await connection.close();
