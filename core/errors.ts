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
  /** The step would call a tool the approval policy names, not approved yet: the subtask asks first. */
  ApprovalRequired: 'ApprovalRequired',
  /** The agent's circuit is open after repeated failures: fail fast. */
  CircuitOpen: 'CircuitOpen',
  /** The remote agent canceled the task (A2A `canceled`): the subtask ends as cancelled. */
  RemoteCancelled: 'RemoteCancelled',
  /** The provider kept throttling longer than the attempt could wait: retried after the provider's wait; never counts against the breaker. */
  Throttled: 'Throttled',
  /** A nested job is deeper than the operator's cap. */
  DepthExceeded: 'DepthExceeded',
  /** An update names something the job does not have (a subtask id). */
  NotFound: 'NotFound',
  /** An update that the job's state forbids (a finished subtask, a nested job topped up directly, an open axis topped up). */
  Conflict: 'Conflict',
  /** An update past the largest value accepted (a limit past its axis's max); details are field errors. */
  OutOfRange: 'OutOfRange',
  /** A subtask ended in failure: its run fails with this type, its TaskResult as the failure's details. */
  SubtaskFailed: 'SubtaskFailed',
  /** A webhook delivery failed in a way another attempt may fix (network, 5xx, 429). */
  WebhookError: 'WebhookError',
  /** The webhook receiver answered another non-2xx status: final. */
  WebhookRejected: 'WebhookRejected',
  /** The net policy refuses the webhook's destination (scheme, private or metadata address): final. */
  WebhookRefused: 'WebhookRefused',
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
  ErrorType.RemoteCancelled,
];

/**
 * The HTTP status each failure type means when it reaches the API (an update's refusal, a
 * workflow's input check): the one table the API's error mapping reads.
 */
export const ERROR_HTTP_STATUS: Partial<Record<ErrorType, number>> = {
  [ErrorType.InvalidInput]: 400,
  [ErrorType.BudgetExceeded]: 400,
  [ErrorType.NotFound]: 404,
  [ErrorType.Conflict]: 409,
  [ErrorType.OutOfRange]: 422,
  [ErrorType.DepthExceeded]: 422,
  [ErrorType.NoAgent]: 422,
  [ErrorType.ToolDenied]: 422,
};
