/**
 * The contract tools of the MCP server (delegate_research_subtask, research_subtask_result,
 * delegate_scout, scout_report), driven by the SDK's own client over both transports against
 * an API with one scout per parent session: the contract's output, the scout's report, and
 * refusals (an invalid input, a cap reached, a scope outside the root) as tool errors that
 * carry the problem's code and what remains.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResearchSubtaskOutputSchema } from '../../schemas/research-contract';
import { ScoutReportSchema } from '../../schemas/scout';
import { connectMcp } from './connect';
import { listeningApp, uniqueId } from '../helpers';

let app: FastifyInstance;
let baseUrl: string;
beforeAll(async () => {
  ({ app, url: baseUrl } = await listeningApp({ DELEGATE_SCOUT_CAP_PER_SESSION: '1' }, null));
});
afterAll(async () => {
  await app?.close();
});

/** An MCP client connected over `transport`, closed when the test ends. */
const connect = (transport: 'http' | 'stdio'): Promise<Client> => connectMcp(baseUrl, transport);

type ToolAnswer = Awaited<ReturnType<Client['callTool']>>;
/** The text of a tool answer's first content block. */
const text = (res: ToolAnswer) => (res.content as { type: string; text: string }[])[0]!.text;
/** That text parsed as JSON, from an answer that is not an error. */
function answer(res: ToolAnswer): Record<string, unknown> {
  expect(res.isError, text(res)).toBeFalsy();
  return JSON.parse(text(res)) as Record<string, unknown>;
}

const subtask = (id: string, params: Record<string, unknown>) => ({
  id,
  parent_id: 'mcp_plan',
  question: 'Which PostgreSQL extensions speed up analytics?',
  budget: { latency_seconds: 60, cost_usd: 1, tool_calls: 20 },
  agent: 'sim',
  params,
});
/** The scout root is the process's working directory (the project), the shared worker's too. */
const TREE = 'test/fixtures/scout-tree';
const scout = (session: string, extra: Record<string, unknown> = {}) => ({
  question: 'where is `computeBackoff` defined',
  scopePaths: [TREE],
  parentAgent: 'mcp-test',
  parentSessionId: session,
  featureSlug: 'mcp-scouts',
  parentSessionExcerpt: 'The parent is changing the retry policy of the client and needs to know where the backoff is computed.',
  ...extra,
});

describe.each(['http', 'stdio'] as const)('MCP contract tools over %s', (transport) => {
  it('declares the contract tools with their input schemas and an example', async () => {
    const client = await connect(transport);
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    const research = byName.get('delegate_research_subtask')!;
    expect(Object.keys(research.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['id', 'question', 'budget', 'context_seed', 'stop_conditions', 'parent_id', 'waitSeconds']),
    );
    expect(research.inputSchema.required).toEqual(expect.arrayContaining(['id', 'question', 'budget']));
    const scoutTool = byName.get('delegate_scout')!;
    expect(scoutTool.inputSchema.required).toEqual(
      expect.arrayContaining(['question', 'scopePaths', 'parentAgent', 'parentSessionId', 'parentSessionExcerpt']),
    );
    for (const t of [research, scoutTool]) expect(t.description).toContain(`delegate://docs/tools/${t.name}`);
    const reference = await client.readResource({ uri: 'delegate://docs/tools/delegate_research_subtask' });
    expect((reference.contents[0] as { text: string }).text).toMatch(/Example: \{/);
    expect(Object.keys(byName.get('scout_report')!.inputSchema.properties ?? {})).toEqual(['id', 'waitSeconds']);
    expect(Object.keys(byName.get('research_subtask_result')!.inputSchema.properties ?? {})).toEqual(['jobId', 'waitSeconds']);
  });

  it('delegate_research_subtask returns the contract output; one still running is followed by research_subtask_result; an invalid one is a tool error', async () => {
    const client = await connect(transport);
    const out = answer(
      await client.callTool({
        name: 'delegate_research_subtask',
        arguments: subtask(`sub_${transport}`, { summary: 'Citus helps. It stores columns.' }),
      }),
    );
    expect(ResearchSubtaskOutputSchema.parse(out)).toMatchObject({
      id: `sub_${transport}`,
      status: 'success',
      summary: 'Citus helps. It stores columns.',
      delegate: { parent_id: 'mcp_plan', agent_id: 'sim' },
    });

    const running = answer(
      await client.callTool({
        name: 'delegate_research_subtask',
        arguments: { ...subtask('sub_slow', { steps: 3, latencyMs: 400 }), waitSeconds: 0 },
      }),
    );
    expect(running).toMatchObject({
      id: 'sub_slow',
      status: 'running',
      job_id: expect.any(String),
      note: expect.stringContaining('research_subtask_result'),
    });
    const later = answer(await client.callTool({ name: 'research_subtask_result', arguments: { jobId: running.job_id, waitSeconds: 30 } }));
    expect(later).toMatchObject({ id: 'sub_slow', status: 'success', delegate: { job_id: running.job_id } });

    const { agent: _agent, ...noAgent } = subtask('sub_bad', { answer: 1 });
    const bad = await client.callTool({ name: 'delegate_research_subtask', arguments: noAgent });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/^Invalid research subtask:\n {2}params: params go to a named agent/);
  });

  it('scout_prep takes an id for a scout the harness runs; scout_submit_report refuses an invalid report with its JSON path, then commits a valid one', async () => {
    const client = await connect(transport);
    const prep = answer(await client.callTool({ name: 'scout_prep', arguments: scout(uniqueId(`mcpharness-${transport}`)) }));
    expect(prep).toMatchObject({ id: expect.stringMatching(/^scout-/), tools: ['read_file', 'grep'] });
    const found = {
      findings: [
        {
          file: `${TREE}/src/lib/backoff.ts`,
          line: 8,
          evidence: 'export function computeBackoff(attempt: number, opts: BackoffOptions): number {',
          relevance: 'high',
          explanation: 'computeBackoff is defined here: the delay before each retry.',
        },
      ],
      confidence: 'high',
      recommendation: 'Change the delay in computeBackoff; the client only calls it.',
      files_inspected: [`${TREE}/src/lib/backoff.ts`],
      status: 'success',
    };
    const bad = await client.callTool({
      name: 'scout_submit_report',
      arguments: { id: prep.id, report: { ...found, confidence: 'sure' } },
    });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('body.confidence');
    expect(text(bad)).toContain('one retry is left');
    const ok = answer(await client.callTool({ name: 'scout_submit_report', arguments: { id: prep.id, report: found } }));
    expect(ok).toMatchObject({ committed: true, report: { id: prep.id, status: 'success' }, caps: { perSession: { remaining: 0 } } });
  });

  it('delegate_scout returns the report; a second scout in the session is refused over the cap, with what remains; scout_report reads it again', async () => {
    const client = await connect(transport);
    const session = uniqueId(`mcpsess-${transport}`);
    const report = ScoutReportSchema.parse(answer(await client.callTool({ name: 'delegate_scout', arguments: scout(session) })));
    expect(report).toMatchObject({ status: 'success', parent_agent: 'mcp-test', parent_session_id: session });
    expect(report.findings[0]).toMatchObject({ file: `${TREE}/src/lib/backoff.ts`, line: 8, relevance: 'high' });
    expect(answer(await client.callTool({ name: 'scout_report', arguments: { id: report.id } }))).toEqual(report);

    const capped = await client.callTool({ name: 'delegate_scout', arguments: scout(session) });
    expect(capped.isError).toBe(true);
    expect(text(capped)).toMatch(/^Scout cap reached \(429\)/);
    expect(text(capped)).toContain('code: scout_cap_exceeded');
    expect(text(capped)).toContain('"perSession":{"limit":1,"remaining":0}');

    const outside = await client.callTool({ name: 'delegate_scout', arguments: scout(uniqueId('mcpsess'), { scopePaths: ['../..'] }) });
    expect(outside.isError).toBe(true);
    expect(text(outside)).toContain('code: path_outside_root');
    expect(text(outside)).toContain('scopePaths[0]');
    const short = await client.callTool({
      name: 'delegate_scout',
      arguments: scout(uniqueId('mcpsess'), { parentSessionExcerpt: 'too short' }),
    });
    expect(short.isError).toBe(true);
  });
});
