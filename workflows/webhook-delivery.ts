/**
 * Delivery of a job's completion webhook, off the job's path: the job starts this workflow
 * (parent close policy ABANDON) once its result is final and returns without waiting, so
 * the time to the result says nothing about the receiver.
 *
 *   delegationJob ──result final──> startChild(webhookDelivery, "<jobWorkflowId>/~webhook") ──> return result
 *                                         └──> sendWebhook (retried with backoff) ──> delivered | logged failure
 */
import { ApplicationFailure, log, proxyActivities } from '@temporalio/workflow';
import type { Activities, WebhookInput } from '../activities';
import { ErrorType } from '../core/errors';

/** Types of failure no retry fixes. */
const FINAL_TYPES: string[] = [ErrorType.WebhookRejected, ErrorType.WebhookRefused];

const { sendWebhook } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  summary: 'completion webhook',
  // about four minutes of tries: long enough for a receiver to restart, short enough to be done with
  retry: {
    maximumAttempts: 8,
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: FINAL_TYPES,
  },
});

/** Workflow id of a job's webhook delivery ("~" never occurs in task ids, so no subtask can take it). */
export function webhookWorkflowId(jobWorkflowId: string): string {
  return `${jobWorkflowId}/~webhook`;
}

/** What a delivery ended with. */
export interface WebhookDelivery {
  delivered: true;
  status: number;
}

/** Posts the job's completion to its callbackUrl, retrying; a final failure is logged and fails this workflow only. */
export async function webhookDelivery(input: WebhookInput): Promise<WebhookDelivery> {
  try {
    const { status } = await sendWebhook(input);
    return { delivered: true, status };
  } catch (err) {
    // the activity's messages name only the receiver's origin, never its path or query
    const cause = (err as { cause?: { message?: string; type?: string } }).cause;
    log.warn('webhook not delivered', {
      jobId: input.jobId,
      tenant: input.tenant,
      type: cause?.type,
      error: cause?.message ?? String(err),
    });
    throw ApplicationFailure.nonRetryable(
      `webhook not delivered: ${cause?.message ?? 'unknown error'}`,
      cause?.type ?? ErrorType.WebhookError,
    );
  }
}
