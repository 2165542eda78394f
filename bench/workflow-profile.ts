/**
 * Where the worker's CPU goes: one worker per side (the bare baseline's, Delegate's, and with
 * BENCH_BEFORE an earlier commit's), each alone in a process of its own against one dev server,
 * running the same echo fan-outs (a warm-up of N, then BENCH_PROFILE_RUNS × N). Each side runs
 * twice: unprofiled, for each thread's CPU per subtask from /proc (the workflow thread, the main
 * thread, the whole process); then under `node --cpu-prof`, whose samples split the workflow
 * thread's CPU into the SDK's promise hook (a stack captured for every promise a workflow
 * creates), module evaluation per run, GC and the rest, and give the top self-time entries of
 * the workflow thread and of the main thread (from the jobs' start). Parents and batches are
 * counted in.
 *
 *   BENCH_N=200 BENCH_PROFILE_RUNS=2 [BENCH_BEFORE=<commit>] npm run bench -- workflow-profile
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { bareRun, beforeWorkerModule, delegateRun, startBareWorker } from './delegate-runs';
import { beforeCheckout, benchRecord, quietRuntime, report, root, round, startTemporal, statCpu } from './lib';
import { bundleWorkflows, createWorker } from '../workers/worker';

const N = Number(process.env.BENCH_N ?? 200);
const RUNS = Number(process.env.BENCH_PROFILE_RUNS ?? 2);
type Side = 'bare' | 'delegate' | 'before';
/** An earlier commit's worker as a third side (BENCH_BEFORE, as the other benches; none by default). */
const beforeDir = process.env.BENCH_BEFORE && process.env.BENCH_BEFORE !== 'none' ? beforeCheckout() : undefined;

/** The child: one side's worker in this (profiled) process, its jobs, then a clean exit so the profiles are written. */
async function runSide(side: Side, address: string): Promise<void> {
  quietRuntime();
  const connection = await NativeConnection.connect({ address });
  const client = new Client({ connection: await Connection.connect({ address }) });
  // a Delegate worker as the commit's own workers/main.ts builds it: with the commit's bundle
  const code = side === 'before' ? await beforeWorkerModule(process.env.BENCH_BEFORE_DIR!) : { createWorker, bundleWorkflows };
  const worker =
    side === 'bare'
      ? await startBareWorker(connection)
      : await code.createWorker({
          connection,
          namespace: 'default',
          taskQueue: 'bench-delegate',
          workflowBundle: code.bundleWorkflows ? await code.bundleWorkflows() : undefined,
          record: await benchRecord(),
        });
  const running = worker.run();
  // when the jobs start, on the profiler's clock (monotonic µs): the main thread's samples before it
  // (its start, the bundling above all) would drown the rest
  const jobsFromUs = Number(process.hrtime.bigint() / 1000n);
  const cpu0 = process.cpuUsage();
  const threads0 = threadCpu();
  // ids of this process's own: every side's runs stay in visibility, and countRuns matches by id
  const prefix = `${side}-${process.pid}`;
  const run = (n: number) => (side === 'bare' ? bareRun(client, n, prefix) : delegateRun(client, n, { prefix }));
  let workflows = 0;
  for (let r = 0; r <= RUNS; r++) {
    const { workflowId } = await run(N);
    workflows += await countRuns(client, workflowId);
  }
  const cpu = process.cpuUsage(cpu0);
  const threads = threadCpu();
  const used = [...threads].map(([tid, t]) => ({ tid, name: t.name, ms: t.ms - (threads0.get(tid)?.ms ?? 0) }));
  const mainThreadMs = used.find((t) => t.tid === process.pid)?.ms ?? NaN;
  // the busiest JavaScript thread that is not the main one: the workflow thread (the SDK runs the bundle in one
  // worker thread); core's threads are tokio's, the profiler's are V8's
  const workflowThreadMs = Math.max(...used.filter((t) => t.tid !== process.pid && t.name === 'node').map((t) => t.ms));
  worker.shutdown();
  await running;
  await connection.close();
  console.log(
    `RESULT ${JSON.stringify({ side, workflows, processCpuMs: (cpu.user + cpu.system) / 1000, mainThreadMs, workflowThreadMs, jobsFromUs })}`,
  );
  process.exit(0);
}

/** CPU ms (utime + stime) of each thread of this process, by thread id, with the thread's name. */
function threadCpu(): Map<number, { name: string; ms: number }> {
  const out = new Map<number, { name: string; ms: number }>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      out.set(Number(tid), statCpu(`/proc/self/task/${tid}/stat`));
    } catch {
      /* the thread ended */
    }
  }
  return out;
}

/** Workflow runs under a root (itself, its batches, its children), from visibility. */
async function countRuns(client: Client, rootId: string): Promise<number> {
  const query = `WorkflowId = '${rootId}' OR WorkflowId STARTS_WITH '${rootId}/'`;
  for (let i = 0; ; i++) {
    const { count } = await client.workflow.count(query);
    if (count > N || i > 50) return count;
    await new Promise((r) => setTimeout(r, 200));
  }
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const REST = 'the rest of the activations';
/** How a sample's stack is classified: the first rule that any frame of it matches, innermost first. */
const CATEGORIES: [string, (f: ProfileNode['callFrame']) => boolean][] = [
  [
    'promise hook (stack per promise)',
    (f) => f.url.endsWith('vm-shared.js') && /^(init|Error\.prepareStackTrace|settled)$/.test(f.functionName),
  ],
  ['module evaluation per run', (f) => f.functionName === '__webpack_require__'],
  ['garbage collector', (f) => f.functionName === '(garbage collector)'],
];

/** A profile's busy time by category and by self-time entry; `fromUs`: only the samples from then on (the profiler's clock). */
function analyse(file: string, fromUs = 0) {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const cat = new Map<string, number>();
  let busy = 0;
  const catOf = new Map<number, string>();
  const categorise = (id: number): string => {
    const known = catOf.get(id);
    if (known) return known;
    let found = REST;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at)!.callFrame;
      const hit = CATEGORIES.find(([, test]) => test(f));
      if (hit) {
        found = hit[0];
        break;
      }
    }
    catOf.set(id, found);
    return found;
  };
  let at = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    at += p.timeDeltas[i] ?? 0;
    if (at < fromUs) continue;
    const node = byId.get(p.samples[i])!;
    const dt = (p.timeDeltas[i + 1] ?? 0) / 1000; // a sample's time is the gap to the next one
    if (node.callFrame.functionName === '(idle)') continue;
    busy += dt;
    const f = node.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url ? basename(f.url) : ''}`.trim();
    self.set(key, (self.get(key) ?? 0) + dt);
    const c = categorise(node.id);
    cat.set(c, (cat.get(c) ?? 0) + dt);
  }
  // only the workflow thread runs the bundle's code (the main thread loads the SDK's modules, not the bundle)
  const isWorkflowThread = p.nodes.some((n) => n.callFrame.url.includes('workflow-bundle-'));
  return { busy, self, cat, isWorkflowThread };
}

interface SideResult {
  /** When the jobs began, on the profiler's clock (µs). */
  jobsFromUs: number;
  workflows: number;
  processCpuMs: number;
  mainThreadMs: number;
  workflowThreadMs: number;
}

/** Runs one side in a process of its own, profiled (into `profileDir`) or not. */
function spawnSide(side: Side, address: string, profileDir?: string): Promise<SideResult> {
  return new Promise((resolve, reject) => {
    const prof = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    const child = spawn(process.execPath, [...prof, '--import', 'tsx', join(root, 'bench', 'workflow-profile.ts'), side, address], {
      cwd: root,
      env: { ...process.env, ...(beforeDir ? { BENCH_BEFORE_DIR: beforeDir } : {}) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (b: Buffer) => (text += b.toString()));
    child.once('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(/RESULT (.*)/.exec(text)![1]) as SideResult)
        : reject(new Error(`${side} exited ${code}: ${text.slice(-2000)}`)),
    );
  });
}

/**
 * Each side twice: unprofiled, for its threads' CPU (from /proc: the profiler's sampling costs CPU
 * of its own, and a sampled profile counts wall time, which a loaded machine stretches); then
 * profiled, for the shares of the workflow thread's samples, applied to the unprofiled CPU.
 */
async function main() {
  quietRuntime();
  const t = await startTemporal('workflow-profile');
  const rows: (string | number)[][] = [];
  const data: Record<string, unknown>[] = [];
  const tops: string[] = [];
  const subtasks = N * (RUNS + 1);
  const per = (ms: number) => round(ms / subtasks, 2);
  try {
    for (const side of ['bare', 'delegate', ...(beforeDir ? ['before'] : [])] as Side[]) {
      // the dev server's CPU while this side ran (it is idle otherwise): what the side cost the engine
      const serverStat = `/proc/${t.server.process.pid!}/stat`;
      const server0 = statCpu(serverStat).ms;
      const plain = await spawnSide(side, t.server.address);
      const serverMs = statCpu(serverStat).ms - server0;
      const dir = mkdtempSync(join(tmpdir(), `delegate-profile-${side}-`));
      const profiled = await spawnSide(side, t.server.address, dir);
      // the main thread's profile is thread 0's (CPU.<date>.<time>.<pid>.0.<seq>.cpuprofile); the workflow
      // thread is the other one that ran the bundle
      const files = readdirSync(dir);
      const mainFile = files.find((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f))!;
      const main = analyse(join(dir, mainFile), profiled.jobsFromUs);
      const wf = files
        .filter((f) => f !== mainFile)
        .map((f) => analyse(join(dir, f)))
        .find((x) => x.isWorkflowThread);
      rmSync(dir, { recursive: true, force: true });
      if (!wf) throw new Error(`${side}: no profile of a workflow thread`);
      const { busy, cat, self } = wf;
      // a sample category's share of the profiled thread's busy time, in the unprofiled run's CPU
      const scaled = (ms: number) => per((ms / busy) * plain.workflowThreadMs);
      const catRow = Object.fromEntries([...cat].map(([k, v]) => [k, scaled(v)]));
      rows.push([
        side,
        subtasks,
        plain.workflows,
        per(plain.workflowThreadMs),
        per(plain.mainThreadMs),
        per(plain.processCpuMs),
        per(serverMs),
        per(plain.processCpuMs + serverMs),
        ...CATEGORIES.map(([c]) => catRow[c] ?? 0),
        catRow[REST] ?? 0,
      ]);
      const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 15);
      tops.push(`\n${side}: the workflow thread's top self time, ms of CPU per subtask\n`);
      for (const [k, v] of top) tops.push(`  ${scaled(v).toFixed(2).padStart(6)}  ${k}`);
      const mainTop = [...main.self].sort((a, b) => b[1] - a[1]).slice(0, 15);
      const mainScaled = (ms: number) => per((ms / main.busy) * plain.mainThreadMs);
      tops.push(`\n${side}: the main thread's top self time (activities, the SDK's worker, the record), ms of CPU per subtask\n`);
      for (const [k, v] of mainTop) tops.push(`  ${mainScaled(v).toFixed(2).padStart(6)}  ${k}`);
      data.push({
        side,
        subtasks,
        ...plain,
        serverCpuMs: serverMs,
        categories: catRow,
        top: top.map(([k, v]) => ({ entry: k, msPerSubtask: scaled(v) })),
        mainTop: mainTop.map(([k, v]) => ({ entry: k, msPerSubtask: mainScaled(v) })),
      });
    }
    report(
      'workflow-profile',
      `CPU per subtask (N = ${N}, a warm-up and ${RUNS} runs per side, parents and batches included), ms`,
      [
        'side',
        'subtasks',
        'workflow runs',
        'workflow thread',
        'main thread',
        'process',
        'dev server',
        'process + server',
        ...CATEGORIES.map(([c]) => c),
        REST,
      ],
      rows,
      data,
    );
    console.log(tops.join('\n'));
  } finally {
    await t.close();
  }
}

const [side, address] = process.argv.slice(2);
if (side === 'bare' || side === 'delegate' || side === 'before') await runSide(side, address!);
else await main();
