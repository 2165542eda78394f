/**
 * The step and resolve activities' contract: what a subtask hands the worker for one agent
 * step (and for resolving its agent), and what comes back. Both sides are in other processes
 * (the workflow on one worker, the step on a pool's), and every field lands in the engine's
 * histories, so a field keeps its name.
 *
 *   subtask ──ResolveAgentInput──> resolveAgent ──ResolvedAgent──> subtask
 *   subtask ──AgentStepInput (previous?, answer?, messages?, role?)──> agentStep ──AgentStepOutput (ask?)──> subtask
 *   a refused step ──ApplicationFailure details[0]: FailureDetails──> subtask
 */
import type { AgentManifest, AgentRef, Budget, Evidence, TaskSpec, Usage } from '../schemas';
import type { RoleStepContext } from './role';

/** Whose stream a job (or a subtask's steps) writes to: the root job's (job, subtask and step inputs carry it). */
export interface EventTarget {
  tenant: string;
  jobId: string;
}

/** The previous pipeline stage's result: host-provided context for the next stage. */
export interface PreviousStage {
  /** The previous stage's task id. */
  id: string;
  summary: string;
  data?: unknown;
  evidence: Evidence[];
}

/** A question's answer, handed to the step after the one that asked. */
export interface StepAnswer {
  question: string;
  answer: unknown;
  note?: string;
  by: string;
}

/** A steering message for the next step. */
export interface SteeringNote {
  text: string;
  from?: string;
}

/** A question instead of a result: the subtask waits for the answer (the inbox), then runs the next step with it. */
export interface StepAsk {
  question: string;
  /** JSON Schema the answer must satisfy (checked by the API when it is given). */
  answerSchema?: Record<string, unknown>;
}

/** Input of `resolveAgent`: the task's reference and params. */
export interface ResolveAgentInput {
  agent: AgentRef;
  question: string;
  params?: Record<string, unknown>;
  /** The task's scope: capability routing only picks agents whose tools it allows. */
  scope?: string[];
  /** The lane the subtask's steps run on, whose pool queues capability routing reads (absent: this activity's queue). */
  lane?: string;
}

/** What a router decided: the agent, and why, in words a TaskResult carries. */
export interface RouteDecision {
  agent: string;
  reason: string;
}

/** What `resolveAgent` answers: the agent's manifest, and which agent was chosen why. */
export interface ResolvedAgent {
  manifest: AgentManifest;
  routing: RouteDecision;
  /** A capability routed by load: its other agents that take the params and scope (id order, at most MAX_FALLBACKS), the task's fallbacks when it names none. */
  fallbacks?: string[];
}

/** Input of one `agentStep`. */
export interface AgentStepInput {
  agentId: string;
  task: TaskSpec;
  step: number;
  state?: unknown;
  budgetLeft: Budget;
  reprompt?: string;
  stepKey: string;
  /** The root job's event stream: the step writes `subtask.step` (and `subtask.retried` on a retry) there. */
  events?: EventTarget;
  /** In a pipeline: the previous stage's result, handed on to the agent as `StepRequest.previous`. */
  previous?: PreviousStage;
  /** The step's retry policy's attempts (for the RETRY log line; the policy itself is Temporal's). */
  maxAttempts?: number;
  /** A role task's policy and protocol answers (see activities/role-protocol-tools.ts). */
  role?: RoleStepContext;
  /** The job's model for llm agents (set when the job has one). */
  model?: string;
  /** Output-token cap of one model turn, after routing. */
  maxOutputTokens?: number;
  /** The job's W3C trace context: HTTP and A2A agents receive it (`StepRequest.traceparent`), the step's log lines its trace id. */
  traceparent?: string;
  /** The answer to the previous step's question. */
  answer?: StepAnswer;
  /** Steering messages for this step. */
  messages?: SteeringNote[];
  /** Tools of `task.approval.tools` approved so far: a step calling another one is refused with ApprovalRequired first. */
  approvedTools?: string[];
}

/** Output of one `agentStep`, normalised by the host. */
export interface AgentStepOutput {
  done: boolean;
  usage: Usage;
  summary: string;
  data?: unknown;
  confidence: number;
  evidence: Evidence[];
  citations: string[];
  followUps: string[];
  channelsHit: string[];
  state?: unknown;
  attempt: number;
  /** Whether the step's data satisfies the task's outputSchema (set when the task has one and the step gave data). */
  schemaValid?: boolean;
  /** The agent asked a question instead of answering (never with `done`). */
  ask?: StepAsk;
  /** How long the step waited on its provider's throttling (absent: not at all). */
  throttledMs?: number;
}

/** What a failure tells the subtask beyond its type (ApplicationFailure `details[0]`). */
export interface FailureDetails {
  /** What the step spent before it was refused (the agent ran): the subtask books it. */
  usage?: Usage;
  /** Set when another answer cannot fix the failure (an outputSchema that does not compile): no re-prompt. */
  noReprompt?: boolean;
  /** ApprovalRequired: the tools that wait for approval. */
  tools?: string[];
}
