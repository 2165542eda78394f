import { z } from 'zod';
import { AskSchema } from './approval';
import { tokenSplitShape, usageShape } from './budget-axes';
import { EvidenceSchema } from './evidence';
import { RetrySchema } from './job';
import { RoleSchema, SkillSchema } from './role';
import { PoolNameSchema } from './pools';
import { agentProviderFields, ProviderConfigSchema } from './provider';

/** A version that still serves, with a warning in every result it gives: true, or why (what to use instead). */
const DeprecatedSchema = z
  .union([z.boolean(), z.string().min(1).max(500)])
  .describe('this version still serves, and every TaskResult it gives carries a warning: true, or why (e.g. "use ^2")');

/** The version fields of an agents-file entry: several entries may share an id, each its own version. */
const agentVersionFields = {
  version: z
    .string()
    .min(1)
    .default('1.0.0')
    .describe(
      'semantic version; entries sharing an id differ in it, and a task picks one with `agent: "id@^2"` (absent: the newest not deprecated)',
    ),
  deprecated: DeprecatedSchema.optional(),
};

/** An agent's declared identity, capabilities, contract and limits. */
export const AgentManifestSchema = z
  .object({
    id: z.string().min(1),
    version: z.string().min(1),
    deprecated: DeprecatedSchema.optional(),
    description: z.string(),
    kind: z.enum(['builtin', 'http', 'llm', 'a2a']),
    capabilities: z.array(z.string()),
    inputSchema: z.record(z.string(), z.unknown()).describe('JSON Schema of params'),
    outputSchema: z.record(z.string(), z.unknown()).optional().describe('JSON Schema of result data'),
    limits: z.object({
      timeoutSeconds: z.number().positive().describe('default per-attempt limit of one step'),
      maxSteps: z.number().int().positive(),
    }),
    retry: RetrySchema.describe('default retry policy of one step'),
    tools: z.array(z.string()),
    pool: PoolNameSchema.optional().describe("the agent's pool: its steps run on the pool's own task queue (absent: the tenant's lane)"),
    provider: z
      .string()
      .optional()
      .describe(
        "the provider whose declared limits pace the agent's steps: they run on the provider's own task queue, shared by every tenant",
      ),
  })
  .meta({ id: 'AgentManifest' });
export type AgentManifest = z.infer<typeof AgentManifestSchema>;

/** One agent served over HTTP: Delegate POSTs each step to `url` and expects a step reply. */
export const HttpAgentConfigSchema = z
  .strictObject({
    kind: z.literal('http').default('http'),
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/),
    ...agentVersionFields,
    description: z.string().default(''),
    url: z.url({ protocol: /^https?$/ }),
    headers: z.record(z.string(), z.string()).default({}).describe('sent with every step; "${VAR}" is read from the environment'),
    capabilities: z.array(z.string()).default([]),
    pool: PoolNameSchema.optional().describe(
      "its steps run on this pool's own task queue, served by the workers that host the pool (DELEGATE_POOLS)",
    ),
    ...agentProviderFields,
    inputSchema: z.record(z.string(), z.unknown()).default({ type: 'object' }).describe('JSON Schema of params'),
    outputSchema: z.record(z.string(), z.unknown()).optional(),
    timeoutSeconds: z.number().positive().max(86_400).default(60),
    maxSteps: z.number().int().positive().max(100_000).default(50),
    retry: RetrySchema.default({ maxAttempts: 3, initialIntervalSeconds: 1, backoffCoefficient: 2, maximumIntervalSeconds: 30 }),
    tools: z.array(z.string()).default([]).describe('tools the agent may call; a task must allow them in scope'),
  })
  .meta({ id: 'HttpAgentConfig' });
export type HttpAgentConfig = z.infer<typeof HttpAgentConfigSchema>;

/** A tool an LLM agent may call: Delegate POSTs the model's arguments to `url` and hands back the answer. */
export const LlmToolSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  description: z.string().default(''),
  parameters: z.record(z.string(), z.unknown()).default({ type: 'object' }).describe('JSON Schema of the arguments'),
  url: z.url({ protocol: /^https?$/ }),
});

/** The `${VAR}` note of values read from the environment. */
const ENV_NOTE = '"${VAR}" is read from the environment';

/**
 * An MCP server whose tools an LLM agent may use: a command the worker starts (stdio) or a
 * streamable-HTTP endpoint (connected under the MCP address policy). A task's scope names its
 * tools `<id>.<tool>`.
 */
export const McpServerSchema = z
  .strictObject({
    id: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,32}$/)
      .describe('names the server in scopes: its tool "search" is "<id>.search"'),
    stdio: z
      .strictObject({
        command: z.string().min(1),
        args: z.array(z.string()).default([]),
        env: z.record(z.string(), z.string()).default({}).describe(`added to a minimal environment (PATH, HOME, …); ${ENV_NOTE}`),
        cwd: z.string().min(1).optional(),
      })
      .optional(),
    http: z
      .strictObject({
        url: z.url({ protocol: /^https?$/ }),
        headers: z.record(z.string(), z.string()).default({}).describe(`sent with every request; ${ENV_NOTE}`),
      })
      .optional(),
    tools: z
      .array(z.string().min(1).max(128))
      .optional()
      .describe('the only tools of the server the agent may use (bare names); absent: every tool it lists'),
    connectTimeoutSeconds: z.number().positive().max(120).default(10).describe('connecting and listing its tools'),
    callTimeoutSeconds: z.number().positive().max(3600).default(30).describe('one tool call'),
  })
  .refine((s) => (s.stdio === undefined) !== (s.http === undefined), { error: 'give exactly one of stdio and http' });
export type McpServer = z.infer<typeof McpServerSchema>;

/** The providers an LLM agent may run on (the AI SDK's): each speaks its own wire format. */
export const LLM_PROVIDERS = ['openai', 'anthropic', 'google', 'openai-compatible'] as const;

/** An LLM agent: a model on one of the AI SDK's providers, with host-checked tools. */
export const LlmAgentConfigSchema = z
  .strictObject({
    kind: z.literal('llm'),
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/),
    ...agentVersionFields,
    description: z.string().default(''),
    provider: z
      .enum(LLM_PROVIDERS)
      .default('openai-compatible')
      .describe('whose wire format: openai (Responses API), anthropic (Messages), google (Gemini), openai-compatible (chat completions)'),
    baseUrl: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe("required for openai-compatible (e.g. http://localhost:11434/v1); the others default to the provider's own"),
    model: z.string().min(1),
    apiKey: z.string().optional().describe('"${VAR}" is read from the environment'),
    systemPrompt: z.string().default('You are a careful research agent. Answer the question; use the tools you are given when they help.'),
    maxTokensPerStep: z.number().int().positive().default(1024),
    promptCacheTtl: z
      .enum(['5m', '1h'])
      .optional()
      .describe(
        "how long the provider keeps a role's cached prompt prefix (Anthropic's cache control: 5m, or 1h at a higher price to write it); absent: the provider's default (5m)",
      ),
    pricing: z
      .strictObject({
        inputPerMTok: z.number().nonnegative().default(0),
        outputPerMTok: z.number().nonnegative().default(0),
        cachedInputPerMTok: z
          .number()
          .nonnegative()
          .optional()
          .describe('cached input tokens (as the provider reports them); absent: priced as input'),
      })
      .default({ inputPerMTok: 0, outputPerMTok: 0 }),
    streamEvents: z
      .boolean()
      .default(true)
      .describe("a model turn's text goes to the job's event stream as subtask.delta events while it streams"),
    capabilities: z.array(z.string()).default([]),
    pool: PoolNameSchema.optional().describe(
      "its steps run on this pool's own task queue, served by the workers that host the pool (DELEGATE_POOLS)",
    ),
    ...agentProviderFields,
    tools: z.array(LlmToolSchema).default([]).describe('offered to the model only when the task scope allows them'),
    mcpServers: z
      .array(McpServerSchema)
      .max(16)
      .default([])
      .refine((list) => new Set(list.map((m) => m.id)).size === list.length, { error: 'MCP server ids must be unique' })
      .describe("MCP servers whose tools the host lists, offers when the task's scope names them (`<server>.<tool>`) and runs itself"),
    hostTools: z
      .array(z.enum(['read_file', 'grep']))
      .max(2)
      .default([])
      .describe(
        "the code scout's tools, run by the worker on the files of params.paths under its scout root; offered only when the task scope allows them",
      ),
    inputSchema: z.record(z.string(), z.unknown()).default({ type: 'object' }),
    outputSchema: z.record(z.string(), z.unknown()).optional(),
    timeoutSeconds: z.number().positive().max(86_400).default(120),
    maxSteps: z.number().int().positive().max(1000).default(10),
    retry: RetrySchema.default({ maxAttempts: 3, initialIntervalSeconds: 1, backoffCoefficient: 2, maximumIntervalSeconds: 30 }),
  })
  .refine((a) => a.provider !== 'openai-compatible' || a.baseUrl !== undefined, {
    path: ['baseUrl'],
    message: 'an openai-compatible provider needs its baseUrl',
  })
  .meta({ id: 'LlmAgentConfig' });
export type LlmAgentConfig = z.infer<typeof LlmAgentConfigSchema>;

/**
 * A remote A2A 1.0 agent as a subagent: Delegate reads its card (under the connect-time address
 * policy), sends each step's question and context as an A2A message to the card's interface and
 * maps the remote task's states back (README "A2A agents as subagents").
 */
export const A2aAgentConfigSchema = z
  .strictObject({
    kind: z.literal('a2a'),
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/),
    ...agentVersionFields,
    description: z.string().default(''),
    cardUrl: z.url({ protocol: /^https?$/ }).describe('the agent card, e.g. https://agent.example/.well-known/agent-card.json'),
    skill: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("the card's skill to use: checked against the card, sent as the message's metadata.skill"),
    headers: z
      .record(z.string(), z.string())
      .default({})
      .describe('sent with every request (the card too); "${VAR}" is read from the environment'),
    capabilities: z.array(z.string()).default([]),
    pool: PoolNameSchema.optional().describe(
      "its steps run on this pool's own task queue, served by the workers that host the pool (DELEGATE_POOLS)",
    ),
    ...agentProviderFields,
    inputSchema: z.record(z.string(), z.unknown()).default({ type: 'object' }).describe('JSON Schema of params'),
    outputSchema: z.record(z.string(), z.unknown()).optional(),
    timeoutSeconds: z.number().positive().max(86_400).default(300).describe('per-attempt limit of one remote task'),
    maxSteps: z.number().int().positive().max(100_000).default(50),
    retry: RetrySchema.default({ maxAttempts: 3, initialIntervalSeconds: 1, backoffCoefficient: 2, maximumIntervalSeconds: 30 }),
    pricing: z
      .strictObject({ perTaskUsd: z.number().nonnegative().default(0) })
      .default({ perTaskUsd: 0 })
      .describe('what one remote task costs, booked when it ends (A2A reports no usage)'),
  })
  .meta({ id: 'A2aAgentConfig' });
export type A2aAgentConfig = z.infer<typeof A2aAgentConfigSchema>;

/** One agent of the agents file, whatever its kind. */
export type AgentConfig = HttpAgentConfig | LlmAgentConfig | A2aAgentConfig;

/** The agents file (`DELEGATE_AGENTS_FILE`, default `agents.json`). */
export const AgentsFileSchema = z
  .strictObject({
    providers: z
      .array(ProviderConfigSchema)
      .default([])
      .describe('providers that several agents share (one key, one account): their limits hold across every worker, job and tenant'),
    agents: z.array(z.discriminatedUnion('kind', [HttpAgentConfigSchema, LlmAgentConfigSchema, A2aAgentConfigSchema])),
    skills: z.array(SkillSchema).default([]).describe('documents the host serves to role children (load_skill)'),
    roles: z.array(RoleSchema).default([]).describe('specialist roles a task can dispatch to (role, taskType)'),
  })
  .superRefine((file, ctx) => {
    for (const issue of providerIssues(file.providers, file.agents)) ctx.addIssue({ code: 'custom', ...issue });
  });

/** The key an agent calls its service with (where it goes, and as whom): agents sharing one share its limits. */
export function agentKeyOf(a: AgentConfig): string {
  if (a.kind === 'llm') return `llm|${a.provider}|${a.baseUrl ?? ''}|${a.apiKey ?? ''}`;
  const auth = Object.entries(a.headers)
    .filter(([k]) => /^(authorization|x-api-key|api-key)$/i.test(k))
    .map(([k, v]) => `${k.toLowerCase()}=${v}`)
    .sort()
    .join('&');
  return `${a.kind}|${new URL(a.kind === 'http' ? a.url : a.cardUrl).origin}|${auth}`;
}

/** The provider whose limits pace an agent's steps: the entry it names, or its own limits under its id. */
export function providerOf(a: Pick<AgentConfig, 'id' | 'account' | 'limits'>): string | undefined {
  return a.account ?? (a.limits ? a.id : undefined);
}

/** What is wrong with the providers and the agents' use of them (each with the path of its field). */
export function providerIssues(providers: { id: string }[], agents: AgentConfig[]): { path: (string | number)[]; message: string }[] {
  const issues: { path: (string | number)[]; message: string }[] = [];
  const declared = new Map<string, number>();
  providers.forEach((p, i) => {
    if (declared.has(p.id)) issues.push({ path: ['providers', i, 'id'], message: `provider "${p.id}" is declared twice` });
    declared.set(p.id, i);
  });
  const byKey = new Map<string, { agent: string; provider?: string }>();
  agents.forEach((a, i) => {
    const where = (field: string) => ['agents', i, field];
    if (a.account !== undefined && a.limits !== undefined)
      issues.push({
        path: where('limits'),
        message: `agent "${a.id}" names account "${a.account}" and declares limits of its own: give one`,
      });
    if (a.account !== undefined && !declared.has(a.account))
      issues.push({
        path: where('account'),
        message: `agent "${a.id}" names account "${a.account}", which no providers entry declares (declared: ${[...declared.keys()].join(', ') || 'none'})`,
      });
    if (a.limits !== undefined && declared.has(a.id))
      issues.push({
        path: where('limits'),
        message: `agent "${a.id}" declares its own limits, but a providers entry has its id: name the entry with "account" instead`,
      });
    const provider = providerOf(a);
    if (provider !== undefined && a.pool !== undefined)
      issues.push({
        path: where('pool'),
        message: `agent "${a.id}" runs on provider "${provider}"'s own queue: it cannot also name pool "${a.pool}"`,
      });
    const key = agentKeyOf(a);
    const seen = byKey.get(key);
    if (seen && seen.provider !== provider && (seen.provider !== undefined || provider !== undefined))
      issues.push({
        path: where(a.limits ? 'limits' : 'account'),
        message: `agents "${seen.agent}" and "${a.id}" call one service with one key but with different limits (${seen.provider ?? 'none'} and ${provider ?? 'none'}): name one providers entry in both`,
      });
    else if (!seen) byKey.set(key, { agent: a.id, provider });
  });
  return issues;
}

/** Providers entries that no agent names: a warning at start (their limits pace nothing). */
export function unusedProviders(providers: { id: string }[], agents: Pick<AgentConfig, 'account'>[]): string[] {
  const named = new Set(agents.map((a) => a.account));
  return providers.map((p) => p.id).filter((id) => !named.has(id));
}

/** What an HTTP agent answers to one step (the agent protocol). */
export const StepReplySchema = z
  .object({
    done: z.boolean(),
    usage: z.object({ ...usageShape(true), ...tokenSplitShape() }).optional(),
    summary: z.string().max(100_000).optional(),
    data: z.unknown().optional(),
    confidence: z.number().min(0).max(1).optional(),
    evidence: z.array(EvidenceSchema).max(1000).optional(),
    citations: z.array(z.string()).max(1000).optional(),
    followUps: z.array(z.string()).max(1000).optional(),
    channelsHit: z.array(z.string()).max(100).optional(),
    state: z.unknown().optional(),
    ask: AskSchema.optional().describe(
      'a question for the parent (or a human) instead of a result, with `done: false`: the subtask waits for the answer, which the next step gets as `answer`',
    ),
  })
  .meta({ id: 'StepReply' });
