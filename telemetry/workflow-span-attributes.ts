/**
 * A workflow interceptor module of the traced bundle (see worker-tracing.ts): it runs inside
 * the SDK's `RunWorkflow:<type>` span and puts Delegate's ids on it, then what the run spent.
 * Workflow code: deterministic, no I/O; attributes change no command, so replay is untouched.
 */
import { trace, type Attributes } from '@opentelemetry/api';
import {
  workflowInfo,
  type Next,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptorsFactory,
} from '@temporalio/workflow';
import type { JobResult, TaskResult } from '../schemas';
import type { JobInput } from '../contracts/job';
import type { SubtaskInput } from '../contracts/subtask';

/** Ids from a job's or a subtask's input (other workflow types carry none). */
function idsOf(type: string, arg: unknown): Attributes {
  if (type === 'delegationJob') {
    const input = arg as Partial<JobInput> | undefined;
    return {
      // the GenAI conventions' name for a run of several agents
      'gen_ai.operation.name': 'invoke_workflow',
      'delegate.job_id': input?.spec?.jobId,
      'delegate.tenant': input?.tenant,
      'delegate.pattern': input?.spec?.pattern,
      'delegate.depth': input?.depth ?? 0,
    };
  }
  if (type === 'subtask') {
    const input = arg as Partial<SubtaskInput> | undefined;
    const agent = input?.manifest?.id ?? (typeof input?.task?.agent === 'string' ? input.task.agent : undefined);
    return {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': agent,
      'delegate.job_id': input?.jobId,
      'delegate.task_id': input?.task?.id,
      'delegate.agent_id': agent,
    };
  }
  return {};
}

/**
 * Status and spend of a finished job or subtask: the cost tree, each subtask's booked spend and
 * each job's sum, under `delegate.*` (a backend summing `gen_ai.usage.*` over a trace counts the
 * model calls' own spans, so these sums would count them twice).
 */
function outcomeOf(result: unknown): Attributes {
  const r = result as Partial<TaskResult & JobResult> | undefined;
  const m = r?.metrics;
  if (!m) return {};
  return {
    'delegate.status': r.status,
    'delegate.failure_reason': r.failureReason ?? undefined,
    'delegate.cost_usd': m.costUsd,
    'delegate.tokens': m.tokens,
    'delegate.input_tokens': m.inputTokens,
    'delegate.output_tokens': m.outputTokens,
    'delegate.cached_input_tokens': m.cachedInputTokens,
    'delegate.tool_calls': m.toolCalls,
    'delegate.attempts': m.attempts,
    'delegate.steps': m.steps,
  };
}

/** Attributes without the unset ones (the SDK warns about each undefined value). */
const definedOnly = (a: Attributes): Attributes => Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined && v !== null));

/** Sets Delegate's attributes on the workflow's span. */
class SpanAttributesInterceptor implements WorkflowInboundCallsInterceptor {
  async execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const span = trace.getActiveSpan();
    span?.setAttributes(
      definedOnly({ ...idsOf(workflowInfo().workflowType, input.args[0]), 'delegate.workflow_id': workflowInfo().workflowId }),
    );
    const result = await next(input);
    span?.setAttributes(definedOnly(outcomeOf(result)));
    return result;
  }
}

/** The module's interceptors (the bundler looks for `interceptors`). */
export const interceptors: WorkflowInterceptorsFactory = () => ({ inbound: [new SpanAttributesInterceptor()] });
