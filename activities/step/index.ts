/**
 * The step host: the activities that find an agent (`resolveAgent`, resolve.ts) and run one step
 * of it (`agentStep`). A step is its preflight gates (gates.ts), the agent's call (run.ts) and its
 * finish (finish.ts), writing its events to the job's stream on the way (events.ts), while the
 * host heartbeats for the whole attempt.
 *
 *   agentStep ──heartbeat──┬── preflight: registry · params · scope · approval · breaker · schema
 *                          ├── retried? `subtask.retried`
 *                          ├── callAgent (paced, latency cut, streamed) ── failure ──> the subtask's failure
 *                          └── finishStep (checks, `subtask.step`) ──> AgentStepOutput
 */
import { Context } from '@temporalio/activity';
import type { JobEvents, TaskStatsStore } from '../../record';
import type { AgentStepInput, AgentStepOutput } from '../../contracts/step';
import type { NewJobEvent } from '../../schemas';
import { tagActiveSpan } from '../../telemetry/tracing';
import type { StepObserver } from '../../telemetry/metrics';
import type { AgentRegistry } from '../agents/registry';
import { createAdaptiveRouter, type AdaptiveRouter } from '../adaptive-router';
import type { CircuitBreaker } from '../circuit-breaker';
import type { LoadRouter } from '../load-router';
import { processGates, type ProviderGates } from '../provider-gate';
import { createStepStream } from '../step-stream';
import { eventWriter } from './events';
import { finishStep } from './finish';
import { preflight } from './gates';
import { createResolver, defaultRouter } from './resolve';
import { callAgent } from './run';

/** What the agent activities need from their host. */
export interface AgentActivityDeps {
  registry: AgentRegistry;
  /** Append-only file recording each completed step (`<stepKey>\t<attempt>`), for audits. */
  stepLogPath?: string;
  /** Opens per remote agent after failed steps in a row, on any worker (builtin agents are never cut off). @default none: no breaker */
  breaker?: CircuitBreaker;
  /** Where jobs' live events are written (the record). */
  events?: JobEvents;
  /** Told of every step's retry and outcome (the worker's metrics). */
  observer?: StepObserver;
  /** Picks among a capability's agents by load. @default a router reading the worker's own Temporal client, every pool DEFAULT_POOL_SLOTS wide */
  router?: LoadRouter;
  /** The record's task statistics, which `{ capability, routing: 'adaptive' }` routes by. @default none: adaptive routing falls back on load */
  stats?: Pick<TaskStatsStore, 'window'>;
  /** Picks among a capability's agents by measured quality. @default one over `stats` */
  adaptive?: AdaptiveRouter;
  /** The process's provider gates: each remote agent's calls go through its service's. @default gates of this module's own */
  gates?: ProviderGates;
}

/** How often the host heartbeats while an agent step runs. */
const HEARTBEAT_EVERY_MS = 2000;

/** Creates the activities that find agents and run their steps. */
export function createAgentActivities({
  registry,
  stepLogPath,
  breaker,
  events,
  observer,
  router = defaultRouter(),
  stats,
  adaptive = stats ? createAdaptiveRouter({ stats }) : undefined,
  gates = processGates,
}: AgentActivityDeps) {
  /** One attempt of a step, heartbeating meanwhile (agentStep). */
  async function runStep(
    input: AgentStepInput,
    ctx: Context,
    live: { details: () => unknown; done: () => void },
  ): Promise<AgentStepOutput> {
    const { attempt } = ctx.info;
    tagActiveSpan({
      'delegate.job_id': input.events?.jobId,
      'delegate.tenant': input.events?.tenant,
      'delegate.task_id': input.task.id,
      'delegate.agent_id': input.agentId,
      'delegate.step': input.step,
      'delegate.attempt': attempt,
    });
    const checked = await preflight({ input, attempt, ctx, registry, breaker });
    const taskId = input.task.id;
    const subtask = input.stepKey.slice(0, input.stepKey.lastIndexOf('#'));
    const tell = eventWriter(events, input.events, ctx.cancellationSignal, attempt);
    if (attempt > 1) observer?.stepRetried(input.agentId);
    if (attempt > 1)
      await tell({
        key: `retry:${input.stepKey}#${attempt}`,
        type: 'subtask.retried',
        data: { taskId, workflowId: subtask, step: input.step, attempt },
      });
    const target = input.events;
    const stream = createStepStream({
      ctx,
      ...(target && events ? { append: (e: NewJobEvent) => events.append(target.tenant, target.jobId, [e]) } : {}),
      fields: { taskId, workflowId: subtask, step: input.step, attempt },
      key: `${input.stepKey}#${attempt}`,
    });
    live.details = stream.details;
    const { reply, waited } = await callAgent(input, checked, { ctx, attempt, gates, observer, stream, tell, live });
    return finishStep(input, checked, reply, { attempt, stream, tell, waited, stepLogPath });
  }

  return {
    ...createResolver({ registry, router, adaptive }),

    /** Runs one step of an agent, with the host's checks around it. */
    async agentStep(input: AgentStepInput): Promise<AgentStepOutput> {
      const ctx = Context.current();
      // the host heartbeats for the whole attempt (the breaker's checks, a wait for a schema
      // thread, the agent's call, the event writes), so a dead worker is noticed within the
      // heartbeat timeout and a cancelled step is told at once, however long any of them takes
      // every beat carries the step's spend so far: a heartbeat replaces the last one's details
      const live = { details: (): unknown => undefined, done: () => {} };
      const beat = setInterval(() => ctx.heartbeat(live.details()), HEARTBEAT_EVERY_MS);
      try {
        return await runStep(input, ctx, live);
      } finally {
        clearInterval(beat);
        live.done();
      }
    },
  };
}
