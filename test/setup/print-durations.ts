/**
 * `npm run --silent test:durations [n]`: the n (default 10) slowest test files of the runs
 * recorded in test-results/durations.json, and each run's wall time. CI prints it at the end.
 */
import { DURATIONS_FILE, readDurations } from './durations-reporter';

// a reader that closes the pipe early (`| head`) has what it wanted: end quietly, not with EPIPE's stack
process.stdout.on('error', (err: NodeJS.ErrnoException) => process.exit(err.code === 'EPIPE' ? 0 : 1));

const n = Number(process.argv[2] ?? 10);
const { files, runs } = readDurations();
if (files.length === 0) {
  console.log(`no test durations recorded (${DURATIONS_FILE})`);
} else {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  console.log(`The ${Math.min(n, files.length)} slowest of ${files.length} test files:`);
  console.log(`      wall  (tests)  project       file`);
  for (const f of files.slice(0, n)) {
    console.log(
      `  ${s(f.ms).padStart(8)} ${`(${f.testsMs === undefined ? '?' : s(f.testsMs)})`.padStart(9)}  ${f.project.padEnd(13)} ${f.file}${f.state === 'passed' ? '' : ` (${f.state})`}`,
    );
  }
  console.log('Runs:');
  for (const r of runs) console.log(`  ${s(r.wallMs).padStart(8)}  ${r.projects.join(', ')} (${r.files} files)`);
}
