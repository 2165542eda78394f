/**
 * The deployment's identity, as the record holds it: one row with a random id, made once by the
 * migration that created the table, so every process that opens the same record (API, workers)
 * reads the same id, and a process on another record reads another (config/deployment.ts).
 */
import type { RecordDb } from './db';

/** The deployment's id (random hex, made with the record). */
export async function deploymentIdOf({ db }: RecordDb): Promise<string> {
  const row = await db.selectFrom('deployment').select('id').where('one', '=', 1).executeTakeFirstOrThrow();
  return row.id;
}
