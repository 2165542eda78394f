/**
 * Completion webhooks and approval links: how they are signed, and which private addresses webhooks may reach.
 * Part of `ConfigSchema` (schemas/config.ts), under "Webhooks and approvals" in docs/reference/configuration.md.
 */
import { z } from 'zod';
import { bool, list } from './values';

/** The webhooks and approvals variables. */
export const WEBHOOKS_ENV = {
  DELEGATE_WEBHOOK_SECRET: z
    .string()
    .min(16)
    .optional()
    .describe("master HMAC-SHA256 key (16+ characters); each tenant's webhooks are signed with a key derived from it"),
  DELEGATE_WEBHOOK_SIGNATURE: z
    .enum(['standard', 'legacy'])
    .default('standard')
    .describe(
      'how webhooks are signed: standard (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature; whsec_ secrets) or legacy (also the deprecated delegate-signature header and hex secret, removed in the next release); set on the API and the worker',
    ),
  DELEGATE_APPROVAL_SECRET: z
    .string()
    .min(16)
    .optional()
    .describe(
      "master HMAC-SHA256 key (16+ characters) of the approvals' token URLs, each tenant's derived from it; default DELEGATE_WEBHOOK_SECRET; neither: no token URLs",
    ),
  DELEGATE_WEBHOOK_ALLOW_LOOPBACK: bool.default(false).describe('allow callbackUrls to loopback, also over plain http (development only)'),
  DELEGATE_WEBHOOK_ALLOW_CIDRS: list.describe(
    'comma-separated CIDRs webhooks may reach although private ("10.20.0.0/16,fd12::/16"); metadata addresses stay refused',
  ),
  DELEGATE_WEBHOOK_ALLOW_HOSTS: list.describe('comma-separated host names whose private addresses webhooks may reach'),
};
