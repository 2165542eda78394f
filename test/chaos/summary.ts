/**
 * Global setup of the chaos run: a file the scenarios append their summary rows to, and
 * at the end the table of them (scenario, jobs, subtasks, lost, duplicated steps, time).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import type { ScenarioRow } from './audit';
import { chaosTemporal } from './harness';

declare module 'vitest' {
  export interface ProvidedContext {
    chaosSummaryFile: string;
  }
}

/** Renders rows as a plain-text table. */
export function table(head: string[], rows: (string | number)[][]): string {
  const cells = [head, ...rows.map((r) => r.map(String))];
  const width = head.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(width[i]) : c.padStart(width[i]))).join('  ');
  return [line(head), width.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

export default function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'delegate-chaos-summary-'));
  const file = join(dir, 'rows.jsonl');
  project.provide('chaosSummaryFile', file);
  const started = Date.now();
  return () => {
    const rows: ScenarioRow[] = existsSync(file)
      ? readFileSync(file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as ScenarioRow)
      : [];
    rmSync(dir, { recursive: true, force: true });
    const body = rows.map((r) => [r.scenario, r.jobs, r.subtasks, r.lost, r.duplicatedSteps, `${r.seconds.toFixed(1)}s`, r.notes ?? '']);
    console.log(
      `\nChaos summary, Temporal ${chaosTemporal() === 'cluster' ? "server on PostgreSQL (npm run cluster's shape)" : 'dev server'} (${((Date.now() - started) / 1000).toFixed(0)}s in all)\n`,
    );
    console.log(table(['scenario', 'jobs', 'subtasks', 'lost', 'duplicated steps', 'time', 'notes'], body));
    console.log('');
  };
}
