/**
 * `npm run bench`: every bench, one process each (each starts its own dev server), in
 * order; a bench that fails is reported and the rest still run. `npm run bench -- api vote`
 * runs only those.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { root } from './lib';

const ALL = [
  'orchestration',
  'one-job',
  'width',
  'api',
  'vote',
  'fairness',
  'server-settings',
  'archive-cost',
  'record',
  'event-latency',
  'a2a-latency',
  'telemetry',
  'cluster',
  'forecast',
  'llm-stream',
  'workflow-profile',
  'engine-share',
  'replay-cost',
  'lane-cost',
  'providers',
  'spend',
];
const chosen = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ALL;
const failed: string[] = [];
for (const name of chosen) {
  if (!ALL.includes(name)) throw new Error(`no bench "${name}" (have: ${ALL.join(', ')})`);
  console.log(`\n=== bench: ${name} ===`);
  const started = Date.now();
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'bench', `${name}.ts`)], { cwd: root, stdio: 'inherit' });
  console.log(
    `=== ${name}: ${r.status === 0 ? 'done' : `FAILED (${r.signal ?? r.status})`} in ${Math.round((Date.now() - started) / 1000)}s ===`,
  );
  if (r.status !== 0) failed.push(name);
}
if (failed.length > 0) {
  console.error(`\nbenches failed: ${failed.join(', ')}`);
  process.exit(1);
}
