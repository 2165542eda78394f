import { z } from 'zod';

/** Tenant ids: lower-case letters, digits, "_" and "-", starting with a letter or digit, at most 64. */
export const TenantIdSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'tenant ids: lower-case letters, digits, "_" or "-", at most 64, starting with a letter or digit');
export type TenantId = z.infer<typeof TenantIdSchema>;

/** Per-tenant quotas; an absent one takes the deployment's default (DELEGATE_QUOTA_*). */
export const QuotasSchema = z.strictObject({
  requestsPerMinute: z.number().int().positive().max(1_000_000).optional().describe('API requests per minute'),
  runningJobs: z.number().int().positive().max(1_000_000).optional().describe('root jobs running at once'),
  tasksPerJob: z
    .number()
    .int()
    .positive()
    .max(10_000)
    .optional()
    .describe('subtasks in one request, counted across every level of nesting'),
  agentSlots: z.number().int().positive().max(10_000).optional().describe("concurrent agent steps per worker (the tenant's lane)"),
  fairnessWeight: z
    .number()
    .positive()
    .max(1000)
    .optional()
    .describe("the tenant's share where tenants share a queue (a provider's, the workflows'): its jobs' fairness weight, 1 by default"),
});
export type Quotas = z.infer<typeof QuotasSchema>;

/** One tenant of the keys file: the SHA-256 (hex) of each key it may use, never the key itself. */
export const TenantEntrySchema = z.strictObject({
  tenant: TenantIdSchema,
  keySha256: z.array(z.string().regex(/^[0-9a-f]{64}$/, 'hex SHA-256 of the key')).min(1),
  quotas: QuotasSchema.optional(),
});
export type TenantEntry = z.infer<typeof TenantEntrySchema>;

/** `DELEGATE_API_KEYS_FILE`: the tenants and the hashes of their keys (production). */
export const KeysFileSchema = z.strictObject({ tenants: z.array(TenantEntrySchema).min(1) });
export type KeysFile = z.infer<typeof KeysFileSchema>;
