/**
 * The coordinator's tools per specialist role (`delegate_<role>`), driven by the SDK's own
 * client over streamable HTTP and stdio against the shared test stack, whose agents file has
 * two roles (review, review-claude) played by the fake provider.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from './connect';
import { listeningApp, uniqueId } from '../helpers';

let app: FastifyInstance;
let baseUrl: string;
beforeAll(async () => {
  ({ app, url: baseUrl } = await listeningApp({}, null));
});
afterAll(async () => {
  await app?.close();
});

type ToolAnswer = Awaited<ReturnType<Client['callTool']>>;
const text = (res: ToolAnswer) => (res.content as { type: string; text: string }[])[0]!.text;

describe('MCP: a delegate_<role> tool per specialist role', () => {
  it('lists one tool per role, taking only the dynamic part of the task', async () => {
    for (const transport of ['http', 'stdio'] as const) {
      const client = await connectMcp(baseUrl, transport);
      const { tools } = await client.listTools();
      const review = tools.find((t) => t.name === 'delegate_review');
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['delegate_review', 'delegate_review-claude']));
      expect(Object.keys(review!.inputSchema.properties ?? {}).sort()).toEqual([
        'authority',
        'budget',
        'completionCriteria',
        'constraints',
        'jobId',
        'question',
        'rationale',
        'subject',
        'taskType',
        'waitSeconds',
      ]);
      expect(review!.inputSchema.required).toEqual(['taskType', 'question']);
      expect((review!.inputSchema.properties as Record<string, { enum?: string[] }>).taskType.enum).toEqual([
        'code_review',
        'design_review',
        'risk_scan',
      ]);
      // the persona stays with the operator
      expect(review!.description).not.toContain('meticulous');
    }
  });

  it('runs the task under the role: bootstrap, skills, the checked review', async () => {
    const client = await connectMcp(baseUrl, 'http');
    const jobId = uniqueId('mcp-role');
    const res = await client.callTool({
      name: 'delegate_review',
      arguments: {
        jobId,
        taskType: 'code_review',
        question: 'Is the retry loop in PR 12 safe?',
        subject: 'PR 12',
        constraints: ['cite the lines'],
        waitSeconds: 60,
      },
    });
    expect(res.isError, text(res)).toBeFalsy();
    expect(JSON.parse(text(res))).toMatchObject({
      jobId,
      status: 'success',
      failureReason: null,
      output: { result: { kind: 'review', subject: 'PR 12' } },
      role: { id: 'review', taskType: 'code_review', bootstrapped: true, outputKind: 'review', maxOutputTokens: 300 },
    });
  });

  it('refuses a task type the role does not have, before anything runs', async () => {
    const client = await connectMcp(baseUrl, 'http');
    const res = await client.callTool({ name: 'delegate_review-claude', arguments: { taskType: 'risk_scan', question: 'q' } });
    expect(res.isError).toBe(true);
    expect(text(res)).toMatch(/taskType/);
  });
});
