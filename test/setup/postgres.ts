/**
 * Global setup: the PostgreSQL server the record's tests run against (they run on both
 * stores, never skipping this one). `DELEGATE_TEST_PG_URL` names a server of yours (a
 * superuser URL: each test file creates its own database); unset, a throwaway cluster from
 * Debian's packages is started here and deleted at the end.
 */
import type { TestProject } from 'vitest/node';
import { startPostgres } from '../../scripts/postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of the test PostgreSQL server. */
    pgUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const given = process.env.DELEGATE_TEST_PG_URL;
  const server = given ? undefined : await startPostgres();
  project.provide('pgUrl', given ?? server!.url);
  return async () => {
    await server?.stop();
  };
}
