/** The tenants of the test run: their keys, quotas and the keys file the API and worker load. */
import { writeFileSync } from 'node:fs';
import { hashKey } from '../config/tenants';

/** Each test tenant's bearer key and quotas. */
export const TEST_TENANTS = {
  /** Most tests: generous quotas, a wide lane. */
  default: { key: 'test-key-default-0123456789abcdef', quotas: { requestsPerMinute: 1_000_000, agentSlots: 200 } },
  /** Two tenants that must never see each other's jobs. */
  alpha: { key: 'test-key-alpha-0123456789abcdef', quotas: { requestsPerMinute: 1_000_000, agentSlots: 20 } },
  beta: { key: 'test-key-beta-0123456789abcdef', quotas: { requestsPerMinute: 1_000_000, agentSlots: 20 } },
  /** Tight quotas, to be refused. */
  limited: { key: 'test-key-limited-0123456789abcdef', quotas: { requestsPerMinute: 20, runningJobs: 1, tasksPerJob: 5, agentSlots: 5 } },
  /** A tenant that hogs its lane, and one that must not be delayed by it. */
  hog: { key: 'test-key-hog-0123456789abcdef', quotas: { requestsPerMinute: 1_000_000, agentSlots: 4 } },
  victim: { key: 'test-key-victim-0123456789abcdef', quotas: { requestsPerMinute: 1_000_000, agentSlots: 4 } },
  /** The docs' runnable examples (test/docs/examples.test.ts): fixed job ids, kept apart from every other test's. */
  docs: { key: 'test-key-docs-0123456789abcdef', quotas: { requestsPerMinute: 1_000_000, agentSlots: 20 } },
} as const;

/** A test tenant's name. */
export type TestTenant = keyof typeof TEST_TENANTS;

/** The `Authorization` header of a test tenant. */
export function authHeader(tenant: TestTenant = 'default'): { authorization: string } {
  return { authorization: `Bearer ${TEST_TENANTS[tenant].key}` };
}

/** Writes the keys file (hashes only, as in production) and returns its path. */
export function writeKeysFile(path: string): string {
  const tenants = Object.entries(TEST_TENANTS).map(([tenant, t]) => ({ tenant, keySha256: [hashKey(t.key)], quotas: t.quotas }));
  writeFileSync(path, JSON.stringify({ tenants }, null, 2));
  return path;
}
