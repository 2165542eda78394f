/**
 * Runs the record's retention once, now, through Temporal (the same workflow the prune
 * schedule starts), and prints what it deleted, or with --dry-run what it would delete.
 *
 *   npm run record:prune -- --dry-run [--max-age-days 30]
 */
import { Client } from '@temporalio/client';
import { parseArgs } from 'node:util';
import { connectClient, loadConfig } from '../config/config';
import { pruneInputOf, PRUNE_SCHEDULE_ID } from '../workers/prune-schedule';
import { pruneArchive } from '../workflows/prune-archive';

const { values } = parseArgs({ options: { 'dry-run': { type: 'boolean', default: false }, 'max-age-days': { type: 'string' } } });
const config = loadConfig();
const input = { ...pruneInputOf(config), dryRun: values['dry-run'] || config.DELEGATE_RECORD_PRUNE_DRY_RUN };
if (values['max-age-days'] !== undefined) {
  const days = Number(values['max-age-days']);
  if (!(days > 0)) throw new Error(`--max-age-days: a positive number of days, not "${values['max-age-days']}"`);
  input.maxAgeDays = days;
}
const connection = await connectClient(config);
const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
const outcome = await client.workflow.execute(pruneArchive, {
  taskQueue: config.DELEGATE_TASK_QUEUE,
  workflowId: `${PRUNE_SCHEDULE_ID}-manual-${new Date().toISOString()}`,
  args: [input],
});
console.log(JSON.stringify({ ...input, ...outcome }, null, 2));
await connection.close();
