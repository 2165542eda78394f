/**
 * What a job hands each child it starts: a nested job's input or a subtask's, cut from the job's
 * own. Apart from the starting and signalling (children.ts), because these are pure values that
 * only grow when an input field is added, and a field forgotten here is silently not inherited.
 *
 *   job input + task + allocation ──nestedJobInput──> JobInput      (task.job set: a nested job or a batch)
 *                                 ──subtaskInput────> SubtaskInput  (otherwise)
 */
import type { Budget, TaskSpec } from '../../schemas';
import type { EventTarget } from '../../contracts/step';
import type { JobInput } from '../../contracts/job';
import type { SubtaskInput } from '../../contracts/subtask';
import type { RunContext } from './run-context';
import { withContextSeed } from '../../core/task-results';
import { HOST_RULES } from '../subtask';
import { currentModel, nestedModel } from './model';
import { nestedRoutes, submittedManifest, type Routes } from '../../core/routing';
import { childPlan, downshiftFields, type JobShift } from './downshift';

/** What a child's input is built from: the job's own settings. */
export interface ChildSettings {
  input: JobInput;
  depth: number;
  maxDepth: number;
  tenant: string;
  deadline: number;
  isBatch: (taskId: string) => boolean;
  /** The root job's event stream, handed to every child. */
  events?: EventTarget;
}

/** The `model` field of a nested job's input, when there is one. */
const withModel = (model: ReturnType<typeof nestedModel>) => (model ? { model } : {});
/** The `routes` field of a nested job's input, when it has any. */
const withRoutes = (routes: Routes | undefined) => (routes ? { routes } : {});

/** A task with the job's human-in-the-loop rules where it sets none of its own (approval, questions, budget wait); the same task when the job has none. */
export function withJobRules(task: TaskSpec, job: JobInput['spec']): TaskSpec {
  const add = {
    ...(job.approval && !task.approval ? { approval: job.approval } : {}),
    ...(job.allowQuestions !== undefined && task.allowQuestions === undefined ? { allowQuestions: job.allowQuestions } : {}),
    ...(job.budgetWaitSeconds !== undefined && task.budgetWaitSeconds === undefined && !task.role
      ? { budgetWaitSeconds: job.budgetWaitSeconds }
      : {}),
  };
  if (Object.keys(add).length === 0) return task;
  if (task.job) {
    const { approval, allowQuestions, budgetWaitSeconds } = job;
    const nested = { ...task.job, approval: task.job.approval ?? approval, allowQuestions: task.job.allowQuestions ?? allowQuestions };
    return { ...task, job: { ...nested, budgetWaitSeconds: task.job.budgetWaitSeconds ?? budgetWaitSeconds } };
  }
  return { ...task, ...add };
}

/** The input of the nested job (or batch) that runs `task` (one with `task.job`); `agents` are the job's manifests as cut for its nested jobs. */
export function nestedJobInput(
  s: ChildSettings,
  task: TaskSpec,
  context: RunContext,
  allocation: Budget,
  agents: JobInput['agents'],
): JobInput {
  const { input } = s;
  return {
    spec: {
      ...withJobRules(withContextSeed(task, context.contextSeed ?? []), input.spec).job!,
      jobId: `${input.spec.jobId}/${task.id}`,
      // a nested job (and every batch) shares its grant the way its parent does, unless it says otherwise
      ...(task.job!.allocation === undefined && input.spec.allocation ? { allocation: input.spec.allocation } : {}),
      // and its tasks take the identical-subtask cache the way its parent's do
      ...(task.job!.cache === undefined && input.spec.cache ? { cache: input.spec.cache } : {}),
    },
    tenant: s.tenant,
    depth: s.isBatch(task.id) ? s.depth : s.depth + 1,
    maxDepth: s.maxDepth,
    allocation,
    agentQueue: input.agentQueue,
    agents,
    // a batch holds this job's tasks
    ...withRoutes(s.isBatch(task.id) ? input.routes : nestedRoutes(input.routes, task.id)),
    limits: input.limits ?? {},
    deadline: s.deadline,
    ...(s.events ? { events: s.events } : {}),
    ...(s.isBatch(task.id) ? { batch: true } : {}),
    // a batch holds this job's tasks: their ladders too
    ...(s.isBatch(task.id) && input.downshift ? { downshift: input.downshift } : {}),
    ...(s.isBatch(task.id) && input.downshifts ? { downshifts: input.downshifts } : {}),
    ...(input.stepFloors ? { stepFloors: input.stepFloors } : {}),
    ...withModel(nestedModel(input, task.job!)),
    ...(input.traceparent ? { traceparent: input.traceparent } : {}),
    // cut from this job's input, which was checked: the child's run need not check it again
    checked: true,
  };
}

/** The input of the subtask that runs `task`; `shown` is what its outcome's upsert shows (the root's tenant and labels). */
export function subtaskInput(
  s: ChildSettings,
  task: TaskSpec,
  context: RunContext,
  allocation: Budget,
  shown: NonNullable<SubtaskInput['shown']>,
  shift?: JobShift,
): SubtaskInput {
  const { input } = s;
  const limits = input.limits ?? {};
  return {
    task: withJobRules(withContextSeed(task, context.contextSeed ?? []), input.spec),
    jobId: input.spec.jobId,
    allocation,
    previous: context.previous,
    deadline: s.deadline,
    stepCeilingSeconds: limits.stepCeilingSeconds,
    stepScheduleToStartSeconds: limits.stepScheduleToStartSeconds,
    stepsPerRun: limits.subtaskStepsPerRun,
    agentQueue: input.agentQueue,
    manifest: submittedManifest(task, input.agents),
    ...(input.routes?.[task.id] !== undefined ? { routedBy: input.routes[task.id] } : {}),
    ...(s.events ? { events: s.events } : {}),
    showOutcome: true,
    shown,
    hostRules: HOST_RULES,
    // the job's model now: a later switch reaches children started after it, not this one
    ...currentModel(input),
    ...(input.traceparent ? { traceparent: input.traceparent } : {}),
    ...downshiftFields(childPlan(input, task), shift),
  };
}
