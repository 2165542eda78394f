/**
 * `npm test`: the type check and the lint run beside the tests, not before them. The integration
 * tests spend much of their time waiting (servers, timers, agents' latency), which the two checks'
 * CPU fills; their output is held and printed after the tests', each under its name, and any of
 * the three failing fails the run.
 *
 *   tsc --noEmit ─┐
 *   eslint, prettier ─┼─> wait for all ─> their output ─> exit 1 if any failed
 *   vitest run   ─┘ (prints as it goes)
 *
 * The checks keep their caches in node_modules/.cache/delegate (tsc's build info, eslint's and
 * prettier's per-file caches), so a second run checks only what changed: seconds, not a minute
 * of both cores. A clean clone (CI) has no cache and checks everything; `npm run lint` never
 * uses one. eslint's cache is per file, so a type change that breaks a rule in a file left
 * unchanged shows on a clean run (CI, `npm run lint`), not on a cached one.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';

const PROJECTS = ['unit', 'record', 'replay', 'integration'];

interface Check {
  name: string;
  code: number;
  output: string;
}

/** Runs a command with its output held; resolves with its exit code and what it printed. */
function held(name: string, cmd: string, args: string[]): Promise<Check> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', (err) => resolve({ name, code: 1, output: `${output}${String(err)}\n` }));
    child.on('close', (code, signal) => resolve({ name, code: code ?? 1, output: signal ? `${output}killed by ${signal}\n` : output }));
  });
}

/** Runs a command that prints as it goes. */
function live(cmd: string, args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: 'inherit' });
    child.on('error', () => resolve(1));
    child.on('close', (code) => resolve(code ?? 1));
  });
}

const started = Date.now();
// one cache per checkout: worktrees may share one node_modules
const CACHE = `node_modules/.cache/delegate/${createHash('sha1').update(process.cwd()).digest('hex').slice(0, 12)}`;
const checks = Promise.all([
  held('typecheck', 'npx', ['tsc', '--noEmit', '--incremental', '--tsBuildInfoFile', `${CACHE}/tsbuildinfo`]),
  held('lint', 'npx', ['eslint', '.', '--cache', '--cache-strategy', 'content', '--cache-location', `${CACHE}/eslint/`]),
  held('format', 'npx', ['prettier', '--check', '.', '--cache', '--cache-location', `${CACHE}/prettier`]),
]);
const tests = await live('npx', ['vitest', 'run', ...PROJECTS.flatMap((p) => ['--project', p]), ...process.argv.slice(2)]);
const done = await checks;
for (const c of done) {
  console.log(`\n── ${c.name}: ${c.code === 0 ? 'passed' : `FAILED (exit ${c.code})`}`);
  if (c.output.trim()) console.log(c.output.trimEnd());
}
const failed = [...done.filter((c) => c.code !== 0).map((c) => c.name), ...(tests !== 0 ? ['tests'] : [])];
console.log(`\nnpm test: ${failed.length ? `FAILED (${failed.join(', ')})` : 'passed'} in ${Math.round((Date.now() - started) / 1000)} s`);
process.exit(failed.length ? 1 : 0);
