/** Delegate's metrics without a server: sink facts, step observations and breaker states become series. */
import type { WorkflowInfo } from '@temporalio/workflow';
import { describe, expect, it } from 'vitest';
import type { CircuitBreaker, CircuitState } from '../../activities';
import { createApiMetrics, createWorkerMetrics } from '../../telemetry/metrics';
import { metricsSinks } from '../../telemetry/metrics-sinks';
import { reportSinks } from '../../telemetry/report-sinks';
import { scrapeAllowed } from '../../telemetry/metrics-server';
import type { SubtaskOutcome } from '../../contracts/sinks';

/** The value of one series (`name{labels}`) in an exposition text; 0 when absent. */
function value(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

const outcome = (o: Partial<SubtaskOutcome> = {}): SubtaskOutcome => ({
  tenant: 'acme',
  agentId: 'wordcount',
  status: 'success',
  failureReason: null,
  attempts: 1,
  steps: 1,
  costUsd: 0.25,
  tokens: 100,
  toolCalls: 2,
  latencyMs: 1500,
  ...o,
});
const info = {} as WorkflowInfo;

describe('worker metrics', () => {
  it('counts what the workflow sink reports: subtasks, spend per axis, budget halts, jobs and votes', async () => {
    const m = createWorkerMetrics();
    const sinks = metricsSinks(m).delegateMetrics;
    // subtasks are counted from the job's batch of its activation (delegateReports), jobs and votes from delegateMetrics
    const reports = reportSinks(m).delegateReports;
    expect(reports.batch.callDuringReplay).toBe(false);
    expect(sinks.jobFinished.callDuringReplay).toBe(false);
    await reports.batch.fn(info, {
      lines: [],
      finished: [
        outcome(),
        outcome({ status: 'partial', failureReason: 'budget_exhausted', costUsd: 0.5, tokens: 0 }),
        // an llm agent's subtask reports its split
        outcome({ tokens: 160, inputTokens: 120, outputTokens: 40, cachedInputTokens: 100 }),
      ],
    });
    await sinks.jobFinished.fn(info, { tenant: 'acme', pattern: 'vote', status: 'success', root: true, costUsd: 0.75, savedUsd: 0.4 });
    await sinks.voteDecided.fn(info, { tenant: 'acme', early: true, cancelled: 2 });
    const text = await m.registry.metrics();
    expect(value(text, 'delegate_subtasks_total{tenant="acme",agent="wordcount",status="success",failure_reason="none"}')).toBe(2);
    expect(value(text, 'delegate_subtasks_total{tenant="acme",agent="wordcount",status="partial",failure_reason="budget_exhausted"}')).toBe(
      1,
    );
    expect(value(text, 'delegate_spend_usd_total{tenant="acme",agent="wordcount"}')).toBeCloseTo(1);
    // tokens by kind: the split where one was reported, the rest unsplit (cached input is part of input)
    const tokens = (kind: string) => value(text, `delegate_spend_tokens_total{tenant="acme",agent="wordcount",kind="${kind}"}`);
    expect([tokens('input'), tokens('output'), tokens('cached_input'), tokens('unsplit')]).toEqual([120, 40, 100, 100]);
    expect(value(text, 'delegate_spend_tool_calls_total{tenant="acme",agent="wordcount"}')).toBe(6);
    expect(value(text, 'delegate_spend_latency_seconds_total{tenant="acme",agent="wordcount"}')).toBe(4.5);
    expect(value(text, 'delegate_budget_halts_total{tenant="acme",agent="wordcount"}')).toBe(1);
    expect(value(text, 'delegate_jobs_total{pattern="vote",status="success",level="root"}')).toBe(1);
    expect(value(text, 'delegate_vote_decisions_total{early="true"}')).toBe(1);
    expect(value(text, 'delegate_vote_cancelled_voters_total')).toBe(2);
    expect(value(text, 'delegate_vote_saved_usd_total')).toBeCloseTo(0.4);
    // the process's own runtime metrics come along
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
  });

  it('counts steps and retries, and shows each breaker state at scrape time', async () => {
    // what the worker's breaker client last saw (the durable breaker itself is tested against a server)
    const seen = new Map<string, CircuitState>([
      ['steady', 'closed'],
      ['down', 'open'],
    ]);
    const breaker = { states: () => new Map(seen) } as unknown as CircuitBreaker;
    const m = createWorkerMetrics();
    m.watchBreaker(breaker);
    m.observer.stepEnded('flaky', false, 0.2);
    m.observer.stepRetried('flaky');
    m.observer.stepEnded('flaky', true, 0.1);
    let text = await m.registry.metrics();
    expect(value(text, 'delegate_steps_total{agent="flaky",outcome="error"}')).toBe(1);
    expect(value(text, 'delegate_steps_total{agent="flaky",outcome="ok"}')).toBe(1);
    expect(value(text, 'delegate_step_retries_total{agent="flaky"}')).toBe(1);
    expect(value(text, 'delegate_step_duration_seconds_count{agent="flaky"}')).toBe(2);
    expect(value(text, 'delegate_circuit_breaker_state{agent="steady"}')).toBe(0);
    expect(value(text, 'delegate_circuit_breaker_state{agent="down"}')).toBe(2);
    seen.set('down', 'half_open');
    text = await m.registry.metrics();
    expect(value(text, 'delegate_circuit_breaker_state{agent="down"}')).toBe(1);
  });

  it('keeps each registry to itself: two workers in one process do not add up', async () => {
    const a = createWorkerMetrics();
    const b = createWorkerMetrics();
    a.observer.stepRetried('x');
    expect(value(await a.registry.metrics(), 'delegate_step_retries_total{agent="x"}')).toBe(1);
    expect(value(await b.registry.metrics(), 'delegate_step_retries_total{agent="x"}')).toBe(0);
  });
});

describe('API metrics', () => {
  it('times requests by route and counts running jobs by tenant when scraped, dropping tenants no longer counted', async () => {
    let counts = new Map([
      ['acme', 3],
      ['globex', 1],
    ]);
    const m = createApiMetrics(async () => counts);
    m.requestDone('GET', '/v1/jobs/:jobId', 200, 0.03);
    let text = await m.registry.metrics();
    expect(value(text, 'delegate_http_request_duration_seconds_count{method="GET",route="/v1/jobs/:jobId",status_code="200"}')).toBe(1);
    expect(
      value(text, 'delegate_http_request_duration_seconds_bucket{le="0.05",method="GET",route="/v1/jobs/:jobId",status_code="200"}'),
    ).toBe(1);
    expect(value(text, 'delegate_jobs_running{tenant="acme"}')).toBe(3);
    counts = new Map([['acme', 0]]);
    text = await m.registry.metrics();
    expect(value(text, 'delegate_jobs_running{tenant="acme"}')).toBe(0);
    expect(text).not.toContain('tenant="globex"');
  });

  it('lets a scrape in without a token configured, and only with the exact bearer token when one is', () => {
    expect(scrapeAllowed(undefined, undefined)).toBe(true);
    expect(scrapeAllowed(undefined, 'sixteen-chars-token')).toBe(false);
    expect(scrapeAllowed('Bearer wrong', 'sixteen-chars-token')).toBe(false);
    expect(scrapeAllowed('Bearer sixteen-chars-token', 'sixteen-chars-token')).toBe(true);
  });
});

describe('the Grafana dashboard', () => {
  it('queries only metrics the processes export', async () => {
    const { readFileSync } = await import('node:fs');
    const dashboard = JSON.parse(readFileSync(new URL('../../deploy/grafana/delegate-dashboard.json', import.meta.url), 'utf8')) as {
      panels: { targets: { expr: string }[] }[];
    };
    const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr));
    const used = new Set(exprs.flatMap((e) => e.match(/\bdelegate_[a-z_]+/g) ?? []));
    const exported = new Set<string>();
    for (const r of [createWorkerMetrics().registry, createApiMetrics(async () => new Map()).registry]) {
      for (const m of r.getMetricsAsArray()) {
        exported.add(m.name);
        if (String(m.type) === 'histogram') for (const s of ['_bucket', '_sum', '_count']) exported.add(m.name + s);
      }
    }
    expect(used.size).toBeGreaterThanOrEqual(10);
    expect([...used].filter((n) => !exported.has(n))).toEqual([]);
  });
});
