import { z } from 'zod';

/**
 * How a parent agent tells Delegate its session and its current model on any request: HTTP
 * headers on REST, A2A and the MCP endpoint; the same names under `_meta` on an MCP tool call
 * (`delegate/parentSession`, `delegate/parentModel`, `delegate/parentMaxOutputTokens`).
 */
export const PARENT_HEADERS = {
  session: 'delegate-parent-session',
  model: 'delegate-parent-model',
  maxOutputTokens: 'delegate-parent-max-output-tokens',
} as const;

/** The `_meta` keys of an MCP tool call that say the same as PARENT_HEADERS. */
export const PARENT_META_KEYS = {
  session: 'delegate/parentSession',
  model: 'delegate/parentModel',
  maxOutputTokens: 'delegate/parentMaxOutputTokens',
} as const;

/**
 * What a parent's request says of it: its session (the key its model is kept under) and, when
 * it says so, its current model and output-token cap. The latest request that names them
 * governs the session's jobs' children started after it (protocol 3, model routing).
 */
export const ParentRequestSchema = z.strictObject({
  session: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces')
    .describe('the parent session: its jobs take the model its latest request named'),
  model: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("the parent's current model: the session's jobs' children started from now on run on it"),
  maxOutputTokens: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .optional()
    .describe("the parent's output-token cap: a role's lower cap stays, and never a larger one than the role allows"),
});
export type ParentRequest = z.infer<typeof ParentRequestSchema>;
