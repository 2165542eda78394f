/** Builders for the subtask transitions' unit tests: a manifest, a task, a running state, a step's output. */
import type { AgentStepOutput } from '../../../contracts/step';
import type { AgentManifest, Budget, Evidence, TaskSpec, Usage } from '../../../schemas';
import { usageOf } from '../../../core/money';
import { newState, resolved, type RunningState } from '../../../workflows/subtask/state';
import type { SubtaskCarry } from '../../../contracts/subtask';

/** Epoch ms every test's subtask starts at. */
export const T0 = 1_700_000_000_000;

/** An agent manifest; `maxSteps` 10 unless said. */
export function manifest(over: Partial<AgentManifest> = {}): AgentManifest {
  return {
    id: 'agent-a',
    version: '1.0.0',
    description: '',
    kind: 'builtin',
    capabilities: [],
    inputSchema: {},
    limits: { timeoutSeconds: 30, maxSteps: 10 },
    retry: { maxAttempts: 3, initialIntervalSeconds: 1, backoffCoefficient: 2, maximumIntervalSeconds: 30 },
    tools: [],
    ...over,
  };
}

/** A task for agent-a. */
export function task(over: Partial<TaskSpec> = {}): TaskSpec {
  return { id: 't1', question: 'What is it?', agent: 'agent-a', ...over };
}

/** A running state of `task` under `allocation`, its agent resolved, started at T0. */
export function running(opts: { task?: TaskSpec; allocation?: Budget; manifest?: AgentManifest; carry?: SubtaskCarry } = {}): RunningState {
  const t = opts.task ?? task();
  const s = newState({ task: t, allocation: opts.allocation ?? {}, carry: opts.carry }, T0);
  return resolved(s, opts.carry?.manifest ?? opts.manifest ?? manifest());
}

/** Spend of one step. */
export function usage(over: Partial<Usage> = {}): Usage {
  return usageOf(over);
}

/** An evidence item. */
export function ev(id: string, over: Partial<Evidence> = {}): Evidence {
  return { id, source: 'web', snippet: `snippet ${id}`, ...over };
}

/** One completed step's output: not done, nothing found, unless said. */
export function output(over: Partial<AgentStepOutput> = {}): AgentStepOutput {
  return {
    done: false,
    usage: usage(),
    summary: '',
    confidence: 0.5,
    evidence: [],
    citations: [],
    followUps: [],
    channelsHit: [],
    attempt: 1,
    ...over,
  };
}
