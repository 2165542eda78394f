import type { IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { webhookSecretFor } from '../activities';

/** The key the test worker signs completion webhooks with. */
export const TEST_WEBHOOK_SECRET = 'test-webhook-secret-0123456789';

/** A received webhook's body as a receiver using the `standardwebhooks` library verifies it with `secret` (`whsec_…`); throws when it does not verify. */
export function verifyWithLibrary(secret: string, hit: { headers: IncomingHttpHeaders; body: string }): unknown {
  return new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>);
}

/** The same with `tenant`'s secret under `master`. */
export function verifyForTenant(master: string, tenant: string, hit: { headers: IncomingHttpHeaders; body: string }): unknown {
  return verifyWithLibrary(webhookSecretFor(master, tenant), hit);
}
