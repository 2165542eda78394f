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
import type { INBOX_STATES } from '../core/inbox';
import type { DelegateBackend } from './backend';
import { listing } from './tool-docs';
import { failed, json, tool } from './tool-helpers';
import { approvalsInput, OUTPUT } from './tool-schemas';

/** Registers the inbox tools. */
export function registerApprovalTools(server: McpServer, backend: DelegateBackend): void {
  server.registerTool(
    'delegate_approvals',
    listing('delegate_approvals', approvalsInput, OUTPUT.items),
    tool(async (f: { jobId?: string; labels?: Record<string, string>; state?: (typeof INBOX_STATES)[number] }) =>
      json({ items: await backend.approvals(f) }),
    ),
  );

  server.registerTool(
    'delegate_decide',
    listing(
      'delegate_decide',
      {
        id: z.string().min(1).max(64),
        decision: z.enum(['approve', 'reject']).optional(),
        answer: z.unknown().optional(),
        note: z.string().max(2000).optional(),
      },
      OUTPUT.item,
    ),
    tool(async ({ id, ...d }: { id: string; decision?: 'approve' | 'reject'; answer?: unknown; note?: string }) => {
      if (d.decision === undefined && d.answer === undefined) return failed('give decision (approve | reject) or answer');
      return json(await backend.decide(id, d));
    }),
  );
}
