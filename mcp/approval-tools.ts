/**
 * The inbox as MCP tools: a parent agent (or the human behind its harness) sees what its
 * delegated subtasks wait for, and decides: approves a costly step, answers a subagent's
 * question. The same inbox as `GET/POST /v1/approvals`; decisions are recorded as `mcp:<tenant>`.
 *
 *   delegate_approvals { jobId?, labels?, state? } ──> items
 *   delegate_decide { id, decision | answer, note? } ──> the item, decided
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { INBOX_STATES } from '../core/inbox';
import { IdSchema } from '../schemas';
import type { DelegateBackend } from './backend';
import { failed, json, tool } from './tool-helpers';

/** What the model reads for each tool. */
export const APPROVAL_TOOL_DOCS = {
  delegate_approvals:
    'The inbox of your delegated jobs: approvals (before a task starts, before a costly step, before a named tool call), ' +
    'questions a subagent asked instead of answering (detail.question, and detail.answerSchema the answer must satisfy), and jobs waiting for a budget top-up. ' +
    'Each waits until decided or until expiresAt, then follows onTimeout (fail, skip, fallback). Pending ones by default.',
  delegate_decide:
    'Decide one inbox item: { "id": "…", "decision": "approve" } or "reject" for an approval; { "id": "…", "answer": <JSON> } for a question ' +
    '(checked against its answerSchema: a refusal names the field). A note says why; it is kept with the decision in the job record.',
} as const;

/** Registers the inbox tools. */
export function registerApprovalTools(server: McpServer, backend: DelegateBackend): void {
  server.registerTool(
    'delegate_approvals',
    {
      description: APPROVAL_TOOL_DOCS.delegate_approvals,
      inputSchema: {
        jobId: IdSchema.optional(),
        labels: z.record(z.string(), z.string()).optional().describe('only jobs with these labels'),
        state: z.enum(INBOX_STATES).optional().describe('default pending'),
      },
    },
    tool(async (f: { jobId?: string; labels?: Record<string, string>; state?: (typeof INBOX_STATES)[number] }) =>
      json({ items: await backend.approvals(f) }),
    ),
  );

  server.registerTool(
    'delegate_decide',
    {
      description: APPROVAL_TOOL_DOCS.delegate_decide,
      inputSchema: {
        id: z.string().min(1).max(64),
        decision: z.enum(['approve', 'reject']).optional(),
        answer: z.unknown().optional().describe("a question's answer"),
        note: z.string().max(2000).optional(),
      },
    },
    tool(async ({ id, ...d }: { id: string; decision?: 'approve' | 'reject'; answer?: unknown; note?: string }) => {
      if (d.decision === undefined && d.answer === undefined) return failed('give decision (approve | reject) or answer');
      return json(await backend.decide(id, d));
    }),
  );
}
