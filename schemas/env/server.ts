/**
 * The API server: where it listens, which hosts and origins it answers, its connection limits (server-limits.ts), and the supervisor's status file its /readyz reports.
 * Part of `ConfigSchema` (schemas/config.ts), under "API server" in docs/reference/configuration.md.
 */
import { z } from 'zod';
import { list, port } from './values';
import { SERVER_LIMITS_ENV } from '../server-limits';

/** The API server variables. */
export const SERVER_ENV = {
  HOST: z.string().min(1).default('127.0.0.1').describe("the address the API listens on (and the worker's /metrics)"),
  PORT: port.default(3000).describe('the port the API listens on'),
  PUBLIC_URL: z.url().optional().describe('base URL of the API as clients see it, for links; its host is allowed by the Host check'),
  DELEGATE_ALLOWED_HOSTS: list.describe(
    "comma-separated Host names (`name` any port, `name:port` exactly) the API answers; checked when set, and when bound to loopback or auth is off (default then: localhost, 127.0.0.1, [::1], HOST, PUBLIC_URL's host); others get 403 (DNS rebinding)",
  ),
  DELEGATE_ALLOWED_ORIGINS: list.describe(
    'comma-separated exact Origins (`https://app.example`) browsers may send when the Host check is on; unset: any http(s) Origin whose host passes the Host check',
  ),
  // connection limits of the API server (schemas/server-limits.ts)
  ...SERVER_LIMITS_ENV,
  DELEGATE_STACK_STATUS_FILE: z
    .string()
    .min(1)
    .optional()
    .describe("set by npm start and npm run cluster: the supervisor's file of its children's states, which /readyz reports"),
};
