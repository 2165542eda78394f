import { ApplicationFailure, Context, log } from '@temporalio/activity';
import { createHmac } from 'node:crypto';
import type { JobResult } from '../schemas';

/** Input of `sendWebhook`. */
export interface WebhookInput {
  url: string;
  jobId: string;
  workflowId: string;
  result: JobResult;
}

/** What the webhook activity needs. */
export interface WebhookDeps {
  /** HMAC-SHA256 key; when unset, webhooks are sent unsigned. */
  secret?: string;
  /** Per-attempt HTTP timeout. @default 10000 */
  timeoutMs?: number;
}

/** The signature header value: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` (Stripe-style). */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${mac}`;
}

/** Creates the activity that posts a job's completion to its callbackUrl. */
export function createWebhookActivities({ secret, timeoutMs = 10_000 }: WebhookDeps) {
  return {
    /** POSTs the JobResult; 5xx, 429 and network errors are retried, other 4xx are final. */
    async sendWebhook({ url, jobId, workflowId, result }: WebhookInput): Promise<{ status: number }> {
      const body = JSON.stringify({ type: 'job.completed', jobId, workflowId, status: result.status, result });
      const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'delegate-webhook/1', 'delegate-job-id': jobId };
      if (secret) headers['delegate-signature'] = signWebhook(secret, Math.floor(Date.now() / 1000), body);
      const { attempt } = Context.current().info;
      let res: Response;
      try {
        res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
      } catch (err) {
        log.warn('webhook delivery failed', { jobId, url, attempt, error: String(err) });
        throw ApplicationFailure.retryable(`webhook to ${url} failed: ${String(err)}`, 'WebhookError');
      }
      if (res.status >= 500 || res.status === 429) {
        throw ApplicationFailure.retryable(`webhook to ${url} answered ${res.status}`, 'WebhookError');
      }
      if (res.status >= 300) {
        throw ApplicationFailure.nonRetryable(`webhook to ${url} answered ${res.status}`, 'WebhookRejected');
      }
      log.info('webhook delivered', { jobId, url, attempt, status: res.status });
      return { status: res.status };
    },
  };
}
