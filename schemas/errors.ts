/**
 * Failure types raised inside Temporal (`ApplicationFailure.type`). Workflows branch on
 * these strings, never on `instanceof` across the sandbox.
 */
export const ErrorType = {
  /** The agent failed this attempt; the step may be retried. */
  AgentError: 'AgentError',
  /** The agent failed in a way another attempt will not fix. */
  AgentFatal: 'AgentFatal',
  /** The step's input (params, task) is invalid for the agent. */
  InvalidInput: 'InvalidInput',
  /** The agent produced data that does not satisfy the output schema. */
  InvalidOutput: 'InvalidOutput',
  /** The agent asked for a tool outside the task's scope. */
  ToolDenied: 'ToolDenied',
  /** A budget or policy cap forbids the step. */
  BudgetExceeded: 'BudgetExceeded',
  /** No registered agent matches the task's agent reference. */
  NoAgent: 'NoAgent',
  /** The agent's circuit is open after repeated failures: fail fast. */
  CircuitOpen: 'CircuitOpen',
  /** A nested job is deeper than the operator's cap. */
  DepthExceeded: 'DepthExceeded',
} as const;
export type ErrorType = (typeof ErrorType)[keyof typeof ErrorType];

/** Error types a step never retries. */
export const NON_RETRYABLE_ERROR_TYPES: ErrorType[] = [
  ErrorType.AgentFatal,
  ErrorType.InvalidInput,
  ErrorType.InvalidOutput,
  ErrorType.ToolDenied,
  ErrorType.BudgetExceeded,
  ErrorType.NoAgent,
  ErrorType.DepthExceeded,
  ErrorType.CircuitOpen,
];
