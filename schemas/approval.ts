/**
 * Humans and parents in the loop: the approval policy of a task (or of a job, for all its
 * tasks), the inbox item a waiting subtask opens (an approval, a question, a budget wait),
 * and the bodies that decide one. The subtask waits durably on a workflow update; the inbox
 * lists what waits from the record.
 *
 *   subtask ──opens──> inbox item (record + approval.requested) ──POST /v1/approvals/:id | token URL──> decide update ──> subtask goes on
 */
import { z } from 'zod';
import { INBOX_KINDS, INBOX_REASONS, INBOX_STATES, ON_TIMEOUT } from '../core/inbox';
import { OutputSchemaSchema } from './output-schema';

/** When a subtask waits for approval, and what happens when nobody decides in time. */
export const ApprovalPolicySchema = z
  .strictObject({
    beforeStart: z.boolean().optional().describe('wait for approval before the first step'),
    aboveCostUsd: z
      .number()
      .finite()
      .min(0)
      .max(1_000_000)
      .optional()
      .describe("wait for approval before a step whose planned spend (the agent's plan, else its previous step's spend) passes this"),
    tools: z
      .array(z.string().min(1).max(128))
      .max(100)
      .optional()
      .describe('wait for approval before a step that calls one of these tools (once per tool: an approved tool stays approved)'),
    timeoutSeconds: z
      .number()
      .int()
      .min(1)
      .max(30 * 86_400)
      .default(86_400)
      .describe('how long one approval (or question) waits for a decision'),
    onTimeout: z
      .enum(ON_TIMEOUT)
      .default('fail')
      .describe('nobody decided in time: fail the task (timeout), skip it (partial), or move it to its next fallback agent'),
  })
  .meta({ id: 'ApprovalPolicy' });
export type ApprovalPolicy = z.infer<typeof ApprovalPolicySchema>;

/** One item of the inbox: an approval, a question from a subagent, or a job waiting for a budget top-up. */
export const InboxItemSchema = z
  .object({
    id: z.string(),
    kind: z.enum(INBOX_KINDS),
    reason: z.enum(INBOX_REASONS).describe('why it was opened: before_start, spend, tool, question, budget'),
    state: z.enum(INBOX_STATES),
    jobId: z.string(),
    taskId: z.string().optional(),
    workflowId: z.string(),
    labels: z.record(z.string(), z.string()),
    detail: z.record(z.string(), z.unknown()).describe('by reason: plannedUsage, tools, question, answerSchema, ledger'),
    onTimeout: z.enum(ON_TIMEOUT),
    requestedAt: z.string().describe('ISO 8601'),
    expiresAt: z.string().describe('ISO 8601: the wait ends here with onTimeout'),
    decidedAt: z.string().optional(),
    decidedBy: z.string().optional().describe('"key:<tenant>", "token", "timeout", "mcp", …'),
    note: z.string().optional(),
    answer: z.unknown().optional(),
    tokenUrl: z.string().optional().describe('single-use URL that decides this item without the API key (pending items only)'),
  })
  .meta({ id: 'InboxItem' });
export type InboxItem = z.infer<typeof InboxItemSchema>;

/** `POST /v1/approvals/:id`: approve or reject (an approval or a budget wait), or answer (a question). */
export const DecisionSchema = z
  .strictObject({
    decision: z.enum(['approve', 'reject']).optional().describe('an approval or a budget wait; a question takes answer instead'),
    answer: z.unknown().optional().describe("a question's answer, checked against its answerSchema"),
    note: z.string().max(2000).optional(),
  })
  .refine((b) => b.decision !== undefined || b.answer !== undefined, 'give decision (approve | reject) or answer')
  .meta({ id: 'Decision' });
export type Decision = z.infer<typeof DecisionSchema>;

/** `POST /v1/jobs/:jobId/subtasks/:taskId/messages`: a steering message for the subtask's next step. */
export const SteeringMessageSchema = z
  .strictObject({ text: z.string().trim().min(1).max(10_000), from: z.string().max(200).optional() })
  .meta({ id: 'SteeringMessage' });
export type SteeringMessage = z.infer<typeof SteeringMessageSchema>;

/** What an agent's `ask` carries: the question and, optionally, a JSON Schema its answer must satisfy. */
export const AskSchema = z.strictObject({ question: z.string().min(1).max(10_000), answerSchema: OutputSchemaSchema.optional() });
