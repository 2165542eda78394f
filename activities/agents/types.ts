import type { z } from 'zod';
import type { AgentManifest, Budget, Evidence, ProviderLimits, TaskSpec, Usage } from '../../schemas';
import type { RoleStepContext } from '../../contracts/role';
import type { PreviousStage, SteeringNote, StepAnswer, StepAsk } from '../../contracts/step';

/** What the host hands an agent for one step. */
export interface StepRequest {
  /** The task as submitted (without any nested job). */
  task: TaskSpec;
  /** Params after validation against the agent's input schema. */
  params: Record<string, unknown>;
  /** 0-based index of this step in the subtask's loop. */
  step: number;
  /** 1-based attempt of this step. */
  attempt: number;
  /** What the agent carried over from its previous step. */
  state: unknown;
  /** What the subtask has left on each capped axis; an agent that can honour it does. */
  budgetLeft: Budget;
  /** Set when the previous output was invalid: the host's correction for a re-prompt. */
  reprompt?: string;
  /** In a pipeline (from the second stage on): the last successful stage's result. */
  previous?: PreviousStage;
  /** Stable key of this step (`<subtaskWorkflowId>#<step>`), for de-duplication and audits. */
  stepKey: string;
  /** The tenant the step works for (absent for a subtask started without a job's events): per-tenant resources such as the scout root. */
  tenant?: string;
  /** Heartbeat-aware sleep that rejects when the step is cancelled. */
  sleep(ms: number): Promise<void>;
  /** Aborted when the step is cancelled or times out: pass it to fetch and SDK calls. */
  signal: AbortSignal;
  /** A role task: the role's policy and the host's answers to the previous step's protocol calls (llm agents). */
  role?: RoleStepContext;
  /** The job's current model when the subtask started: llm agents run on it instead of their own. */
  model?: string;
  /** Output-token cap of one model turn after routing (the lower of the role's and the job's). */
  maxOutputTokens?: number;
  /** The job's W3C trace context: remote agents send it as the `traceparent` header (a traced worker's own span context wins). */
  traceparent?: string;
  /** Tells the job's stream how the step is getting on (a `subtask.step` event with `done: false` and `progress`); absent without a job stream. */
  progress?(p: StepProgress): Promise<void>;
  /** What the step has spent so far, as it streams (cumulative): a cut step books the last one. */
  onUsage?(usage: Usage): void;
  /** Text of the model's turn as it streams (the host batches it into `subtask.delta` events). */
  onText?(delta: string): void;
  /** The answer to the question the previous step asked (`StepReply.ask`), checked against its answerSchema. */
  answer?: StepAnswer;
  /** Steering messages sent to the subtask since its previous step (an llm agent reads them as user turns). */
  messages?: SteeringNote[];
  /** Runs one call to the agent's service through its provider gate (activities/provider-gate.ts): throttling waits and the call goes again. */
  paced?<T>(call: () => Promise<T>, o?: PacedCallOptions<T>): Promise<T>;
  /** Hands the gate an answer's headers: the rate a provider says it allows (`x-ratelimit-limit-requests`) paces it when nobody declared one. */
  observeHeaders?(headers: Headers): void;
}

/** What an agent tells the gate of one call. */
export interface PacedCallOptions<T> {
  /** The tokens the call is expected to use (reserved against a declared tokens per minute). */
  estimateTokens?: number;
  /** The tokens it used, from its answer. */
  tokensOf?(result: T): number | undefined;
}

/** One call through the request's provider gate; the call alone where no host gives one (an agent run by hand). */
export function pacedCall<T>(req: Pick<StepRequest, 'paced'>, call: () => Promise<T>, o?: PacedCallOptions<T>): Promise<T> {
  return req.paced ? req.paced(call, o) : call();
}

/** A step's progress note (an A2A agent's `working` status update). */
export interface StepProgress {
  /** The remote state, e.g. `working`. */
  state: string;
  text: string;
}

/** What an agent returns from one step. */
export interface StepReply {
  /** True when the agent has its final answer. */
  done: boolean;
  usage?: Partial<Usage>;
  summary?: string;
  data?: unknown;
  confidence?: number;
  evidence?: Evidence[];
  citations?: string[];
  followUps?: string[];
  channelsHit?: string[];
  /** The tools this step called (scope names): its `subtask.step` event lists them. */
  tools?: string[];
  /** Carried to the next step. */
  state?: unknown;
  /** A question for the parent (or a human) instead of a result: the subtask waits for its answer. */
  ask?: StepAsk;
}

/** A registered agent: its manifest, its params schema and its step function. */
export interface AgentDefinition<P extends Record<string, unknown> = Record<string, unknown>> {
  manifest: AgentManifest;
  /** What each of the manifest's tools does, by name: semantic routing reads it. */
  toolDescriptions?: Record<string, string>;
  params: z.ZodType<P>;
  /** Tools a step will call with these params; the host denies any outside the task's scope. */
  toolsFor?(params: P): string[];
  step(req: StepRequest & { params: P }): Promise<StepReply>;
  /** The service the agent calls, as its provider gate knows it (remote agents; builtins call nothing). */
  service?: AgentService;
}

/** Whom a remote agent's calls go to: agents on one key share its pacing and adaptive concurrency. */
export interface AgentService {
  /** The gate's key: the declared provider's id, else the agent's own key (where it calls, as whom). */
  key: string;
  /** For metrics and logs: the declared provider's id, else the agent's id. */
  label: string;
  /** The declared limits (absent: undeclared, found by adapting). */
  limits?: ProviderLimits;
}
