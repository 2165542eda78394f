import { ApplicationFailure, Context, log } from '@temporalio/activity';
import { createHash, createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { JobResult } from '../schemas';
import { DestinationRefusedError, guardedPost, type Resolver } from './guarded-post';
import type { NetPolicy } from './net-policy';
import { ErrorType } from '../core/errors';
import { redact, redactUrl } from './redact';
import { a2aPushBody } from './a2a-push';

/** Input of `sendWebhook`: the receiver as `callbackRef` (the record holds its URL and token) or, from older jobs and jobs started straight through Temporal, as `url`. */
export interface WebhookInput {
  url?: string;
  /** The record's reference to the job's callback (record/callbacks.ts): its URL and A2A token never enter a history. */
  callbackRef?: string;
  /** The tenant whose job finished: picks the signing secret and is named in the body. */
  tenant: string;
  jobId: string;
  workflowId: string;
  result: JobResult;
  /** Set for a job started over A2A with a push config: the body is the A2A task (`application/a2a+json`), the config's token in `X-A2A-Notification-Token`. */
  a2a?: { contextId: string; token?: string };
}

/** How completion webhooks are signed. */
export const WebhookSignature = {
  /** Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`, `whsec_` secrets). */
  standard: 'standard',
  /** Also the deprecated `delegate-signature` header, for receivers not yet moved; goes in the next release. */
  legacy: 'legacy',
} as const;
export type WebhookSignature = (typeof WebhookSignature)[keyof typeof WebhookSignature];

/** What the webhook activity needs. */
export interface WebhookDeps {
  /** Master key; each tenant signs with `webhookSecretFor(secret, tenant)`. When unset, webhooks are sent unsigned. */
  secret?: string;
  /** The signature scheme. @default 'standard' */
  signature?: WebhookSignature;
  /** Per-attempt HTTP timeout. @default 10000 */
  timeoutMs?: number;
  /** Where webhooks may go. @default private, loopback and metadata addresses refused */
  policy?: NetPolicy;
  /** Host name resolution (tests map names to chosen addresses). @default the system resolver */
  resolve?: Resolver;
  /** The record's callbacks, for inputs with a `callbackRef`. @default none: such a webhook is refused */
  callbacks?: { get(ref: string, tenant: string): Promise<{ url: string; token?: string } | undefined> };
}

/** Failure types of `sendWebhook` (the delivery workflow does not retry the last two). */
export const WebhookErrorType = {
  /** Network error, timeout, 5xx or 429: another attempt may succeed. */
  Error: ErrorType.WebhookError,
  /** The receiver answered another non-2xx status. */
  Rejected: ErrorType.WebhookRejected,
  /** The net policy refuses the destination (scheme, private or metadata address). */
  Refused: ErrorType.WebhookRefused,
} as const;

/** A tenant's own signing key: HMAC-SHA256(master, "tenant:<tenant>"); a webhook of one tenant never verifies with another's. */
function tenantKey(master: string, tenant: string): Buffer {
  return createHmac('sha256', master).update(`tenant:${tenant}`).digest();
}

/** A tenant's Standard Webhooks secret: `whsec_` and the base64 of its key, as the `standardwebhooks` libraries take it. */
export function webhookSecretFor(master: string, tenant: string): string {
  return `whsec_${tenantKey(master, tenant).toString('base64')}`;
}

/** @deprecated The same key as hex, the secret of the `legacy` scheme's `delegate-signature`. */
export function legacyWebhookSecretFor(master: string, tenant: string): string {
  return tenantKey(master, tenant).toString('hex');
}

/** @deprecated The `legacy` header value: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` (Stripe-style), keyed with the hex secret's text. */
export function signLegacyWebhook(secret: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${mac}`;
}

/** The `webhook-id` of a job's completion: derived from its workflow id, so every retry carries the same one and a receiver can deduplicate. */
export function webhookIdFor(workflowId: string, event = 'job.completed'): string {
  return `msg_${createHash('sha256').update(`${event}:${workflowId}`).digest('base64url').slice(0, 32)}`;
}

/** What signs one delivery: the master key, the scheme, whose webhook it is and when it is sent. */
export interface SignatureInput {
  master: string;
  signature: WebhookSignature;
  tenant: string;
  workflowId: string;
  body: string;
  now: Date;
}

/** The signature headers of one delivery attempt: Standard Webhooks, plus `delegate-signature` under `legacy`. */
export function signatureHeaders({ master, signature, tenant, workflowId, body, now }: SignatureInput): Record<string, string> {
  const id = webhookIdFor(workflowId);
  const seconds = Math.floor(now.getTime() / 1000);
  const headers: Record<string, string> = {
    'webhook-id': id,
    'webhook-timestamp': String(seconds),
    'webhook-signature': new Webhook(webhookSecretFor(master, tenant)).sign(id, now, body),
  };
  if (signature === WebhookSignature.legacy)
    headers['delegate-signature'] = signLegacyWebhook(legacyWebhookSecretFor(master, tenant), seconds, body);
  return headers;
}

/** Creates the activity that posts a job's completion to its callbackUrl. */
export function createWebhookActivities({
  secret,
  signature = WebhookSignature.standard,
  timeoutMs = 10_000,
  policy = {},
  resolve,
  callbacks,
}: WebhookDeps) {
  /** The receiver's URL and A2A token: from the record when the input names them by reference. */
  async function receiverOf({ url, callbackRef, tenant, a2a }: WebhookInput): Promise<{ url: string; token?: string }> {
    if (!callbackRef) {
      if (!url) throw ApplicationFailure.nonRetryable('the webhook input has neither a url nor a callbackRef', WebhookErrorType.Refused);
      return { url, ...(a2a?.token ? { token: a2a.token } : {}) };
    }
    const found = await callbacks?.get(callbackRef, tenant);
    if (!found)
      throw ApplicationFailure.nonRetryable(
        "the job's callback is not in this worker's record (pruned, or the worker writes to another record)",
        WebhookErrorType.Refused,
      );
    return found;
  }

  return {
    /** POSTs the JobResult; 5xx, 429 and network errors are retried, other non-2xx and refused destinations are final. */
    async sendWebhook(input: WebhookInput): Promise<{ status: number }> {
      const { tenant, jobId, workflowId, result, a2a } = input;
      const { url, token } = await receiverOf(input);
      const body = a2a
        ? a2aPushBody(jobId, a2a.contextId, result)
        : JSON.stringify({ type: 'job.completed', tenant, jobId, workflowId, status: result.status, result });
      const headers: Record<string, string> = {
        'content-type': a2a ? 'application/a2a+json' : 'application/json',
        ...(a2a && token ? { 'x-a2a-notification-token': token } : {}),
        'user-agent': 'delegate-webhook/1',
        'delegate-job-id': jobId,
        'delegate-tenant': tenant,
      };
      // signed per attempt: the timestamp is this attempt's, the webhook-id the same on every one
      if (secret) Object.assign(headers, signatureHeaders({ master: secret, signature, tenant, workflowId, body, now: new Date() }));
      const ctx = Context.current();
      const { attempt } = ctx.info;
      // the URL's path and query may carry the receiver's token: only its origin is ever logged
      const target = redactUrl(url);
      let status: number;
      try {
        const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), ctx.cancellationSignal]);
        status = await guardedPost(url, { body, headers, policy, resolve, signal });
      } catch (err) {
        const why = redact(err instanceof Error ? `${(err as NodeJS.ErrnoException).code ?? err.name}: ${err.message}` : String(err));
        log.warn('webhook delivery failed', { jobId, tenant, target, attempt, error: why });
        if (err instanceof DestinationRefusedError)
          throw ApplicationFailure.nonRetryable(`webhook to ${target} ${err.message}`, WebhookErrorType.Refused);
        throw ApplicationFailure.retryable(`webhook to ${target} failed: ${why}`, WebhookErrorType.Error);
      }
      if (status >= 500 || status === 429)
        throw ApplicationFailure.retryable(`webhook to ${target} answered ${status}`, WebhookErrorType.Error);
      if (status >= 300 || status < 200)
        throw ApplicationFailure.nonRetryable(`webhook to ${target} answered ${status}`, WebhookErrorType.Rejected);
      log.info('webhook delivered', { jobId, tenant, target, attempt, status });
      return { status };
    },
  };
}
