import { z } from 'zod';
import { OutputKindSchema } from './role-output';

const RoleIdSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'letters, digits and "_.-", at most 64');

/** A document the host serves to role children through `load_skill`: inline text, or a file (relative to the agents file). */
export const SkillSchema = z
  .strictObject({
    id: RoleIdSchema,
    title: z.string().min(1).max(200),
    path: z.string().min(1).max(1000).optional(),
    text: z.string().min(1).max(100_000).optional(),
  })
  .refine((s) => (s.path === undefined) !== (s.text === undefined), { message: 'give exactly one of path or text', path: ['path'] })
  .meta({ id: 'Skill' });
export type Skill = z.infer<typeof SkillSchema>;

/** A specialist role: who plays it, its persona, required skills, tools, output kinds per task type and caps. */
export const RoleSchema = z
  .strictObject({
    id: RoleIdSchema,
    persona: z.string().min(1).max(20_000).describe('the stable role policy at the head of every request'),
    agent: z.string().min(1).describe('the id of the llm agent that plays the role'),
    requiredSkills: z.array(z.string().min(1)).max(20).default([]).describe('skill ids the child must load before any role tool or output'),
    tools: z.array(z.string().min(1)).max(50).default([]).describe("the role's tool allowlist (tools of its agent)"),
    outputKinds: z
      .record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/), z.array(OutputKindSchema).min(1).max(4))
      .refine((m) => Object.keys(m).length > 0, 'at least one task type')
      .describe('task type → the completed output kinds allowed for it'),
    maxOutputTokens: z
      .number()
      .int()
      .positive()
      .max(1_000_000)
      .default(16_384)
      .describe('output-token cap of one model turn, applied after routing'),
    maxDepth: z
      .number()
      .int()
      .min(0)
      .max(10)
      .default(1)
      .describe('deepest nesting level a task of this role may run at (0 = only in a root job)'),
  })
  .meta({ id: 'Role' });
export type Role = z.infer<typeof RoleSchema>;

/** What a role subtask reports about the protocol, as the host observed it. */
export const RoleReportSchema = z
  .object({
    id: z.string(),
    taskType: z.string(),
    requiredSkills: z.array(z.string()),
    loadedSkills: z.array(z.string()),
    bootstrapped: z.boolean(),
    protocolErrors: z.array(z.string()).describe('every out-of-order call, answered with a tool error'),
    outputKind: z.string().nullable().describe('the kind of the accepted output, or "decision:<decline|need_more_information>"'),
    model: z.string().optional().describe('the model the child ran on, when the job set one'),
    maxOutputTokens: z.number().describe('the output-token cap after routing'),
  })
  .meta({ id: 'RoleReport' });
export type RoleReport = z.infer<typeof RoleReportSchema>;
