import { z } from 'zod';
import { DEFAULT_POOL_SLOTS, PoolsEnvSchema } from './pools';
import { SERVER_LIMITS_ENV } from './server-limits';
import { DEFAULT_WORKFLOW_STACK_FRAMES, FANOUT_FLAT_MAX_CLUSTER, FANOUT_FLAT_MAX_DEV_SERVER } from '../core/engine-limits';

const port = z.coerce.number().int().min(0).max(65_535);
const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
/** A comma-separated list, `def` when unset. */
const listOf = (def: string) =>
  z
    .string()
    .default(def)
    .transform((v) =>
      v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    );
const list = listOf('');

/** Process configuration, read from the environment by `loadConfig` (entry points only). */
export const ConfigSchema = z
  .object({
    TEMPORAL_ADDRESS: z
      .string()
      .min(1)
      .default('localhost:7233')
      .describe('host:port of the Temporal frontend; when set, `npm start` starts no dev server'),
    TEMPORAL_NAMESPACE: z.string().min(1).default('default').describe('the Temporal namespace of jobs, subtasks and breakers'),
    TEMPORAL_TLS: bool.default(false).describe('use TLS (implied by TEMPORAL_API_KEY; Temporal Cloud)'),
    TEMPORAL_API_KEY: z.string().min(1).optional().describe('Temporal Cloud API key (turns TLS on)'),
    TEMPORAL_UI_URL: z.url().default('http://localhost:8233').describe('base URL of the Temporal Web UI, for the links the API returns'),
    DELEGATE_TASK_QUEUE: z
      .string()
      .min(1)
      .default('delegate')
      .describe('task queue of the workflows and the builtin agents; tenant lanes are `<queue>-agents-<tenant>`'),
    DELEGATE_MAX_DEPTH: z.coerce.number().int().min(0).max(10).default(3).describe('levels of nested jobs below the root'),
    DELEGATE_AGENTS_FILE: z
      .string()
      .min(1)
      .optional()
      .describe('JSON file of HTTP and LLM agents, skills and roles (default: agents.json in the working directory when present)'),
    DELEGATE_RESEARCH_DEFAULT_AGENT: z
      .string()
      .min(1)
      .optional()
      .describe(
        'agent a research-contract subtask (POST /v1/subtasks, MCP, A2A) runs on when it names no agent, before any semantic route; unset: semantic routing by scope and question picks one, else an agent of capability "research" that takes it, and when none can the subtask gets a 422 naming what to configure',
      ),
    DELEGATE_JUDGE_AGENT: z
      .string()
      .min(1)
      .optional()
      .describe('agent that judges free-text stop conditions (rubrics), booked to the subtask; unset: rubrics never stop a subtask'),
    DELEGATE_STEP_LOG: z.string().min(1).optional().describe('append-only file of completed agent steps (audits, chaos tests)'),
    DELEGATE_AUTH: z
      .enum(['on', 'off'])
      .default('on')
      .describe('off: no keys, every caller is tenant "default" (development only); announced at start and in /readyz'),
    DELEGATE_API_KEYS: z
      .string()
      .regex(/^\s*[^=,\s]+=[^,\s]+\s*(,\s*[^=,\s]+=[^,\s]+\s*)*$/, 'comma-separated tenant=key pairs')
      .optional()
      .describe('tenant=key pairs, keys of 16+ characters (development and tests)'),
    DELEGATE_API_KEYS_FILE: z
      .string()
      .min(1)
      .optional()
      .describe('JSON file of tenants with SHA-256 hashes of their keys and their quotas (production); followed while the processes run'),
    DELEGATE_QUOTA_REQUESTS_PER_MINUTE: z.coerce
      .number()
      .int()
      .positive()
      .default(600)
      .describe("API requests per tenant per minute (429 with Retry-After past it); a tenant's own quota in the keys file wins"),
    DELEGATE_QUOTA_RUNNING_JOBS: z.coerce
      .number()
      .int()
      .positive()
      .default(50)
      .describe('root jobs a tenant may have running (429 with Retry-After past it)'),
    DELEGATE_QUOTA_TASKS_PER_JOB: z.coerce
      .number()
      .int()
      .positive()
      .max(10_000)
      .default(10_000)
      .describe('subtasks in one request, counted across every level of nesting (422 past it)'),
    DELEGATE_QUOTA_AGENT_SLOTS: z.coerce
      .number()
      .int()
      .positive()
      .max(10_000)
      .default(50)
      .describe('agent steps a tenant runs at once on each worker (the size of its lane)'),
    DELEGATE_QUOTA_OPEN_STREAMS: z.coerce
      .number()
      .int()
      .positive()
      .max(100_000)
      .default(200)
      .describe('event streams (SSE, A2A, MCP progress) a tenant may hold open on one API process (429 with Retry-After past it)'),
    DELEGATE_QUOTA_OPEN_STREAMS_PER_JOB: z.coerce
      .number()
      .int()
      .positive()
      .max(100_000)
      .default(20)
      .describe('event streams of one job a tenant may hold open on one API process (429 with Retry-After past it)'),
    DELEGATE_JOB_MAX_SECONDS: z.coerce
      .number()
      .int()
      .positive()
      .max(31_536_000)
      .default(86_400)
      .describe('longest a job runs; then running subtasks return timeout with their work'),
    DELEGATE_STEP_CEILING_SECONDS: z.coerce
      .number()
      .int()
      .positive()
      .max(31_536_000)
      .default(86_400)
      .describe("ceiling on one step's worst case (timeout × attempts + backoff); larger tasks get 422"),
    DELEGATE_STEP_SCHEDULE_TIMEOUT_SECONDS: z.coerce
      .number()
      .int()
      .min(0)
      .max(31_536_000)
      .default(300)
      .describe('longest a step waits for a worker to start it (schedule-to-start); then the subtask ends agent_unavailable; 0: no bound'),
    DELEGATE_FANOUT_FLAT_MAX: z.coerce
      .number()
      .int()
      .min(FANOUT_FLAT_MAX_CLUSTER)
      .max(FANOUT_FLAT_MAX_DEV_SERVER)
      .default(FANOUT_FLAT_MAX_CLUSTER)
      .describe(
        'a fan-out of at most this many tasks runs flat in its job, one of more (to 500) as a tree of batches: 100 on a sharded cluster (one parent per 400 children queues on its lock), 500 on the single-shard dev server (`npm start` sets it)',
      ),
    DELEGATE_POOLS: PoolsEnvSchema.optional().describe(
      `pool=steps pairs ("gpu=4,cheap=16"): the agent pools this worker hosts on every lane and the concurrent steps of each; unset: every pool of the agents file, ${DEFAULT_POOL_SLOTS} steps each`,
    ),
    DELEGATE_POOLS_ONLY: bool
      .default(false)
      .describe('the worker hosts only its pools (DELEGATE_POOLS): no workflows, no shared queue, no lanes; e.g. a GPU box'),
    DELEGATE_WORKER_SLOTS: z.coerce
      .number()
      .int()
      .positive()
      .max(10_000)
      .default(200)
      .describe('concurrent agent steps of the shared lane (jobs started without a tenant lane)'),
    DELEGATE_WORKFLOW_STACK_FRAMES: z.coerce
      .number()
      .int()
      .min(1)
      .max(100)
      .default(DEFAULT_WORKFLOW_STACK_FRAMES)
      .describe(
        "frames a stack trace keeps in the workers' workflow code (the UI's Stack Trace tab, a workflow error's stack): each frame costs every promise a workflow makes; V8's default is 10",
      ),
    DELEGATE_BREAKER_FAILURES: z.coerce
      .number()
      .int()
      .positive()
      .max(10_000)
      .default(5)
      .describe("failed steps in a row, on any worker, that open a remote agent's circuit"),
    DELEGATE_BREAKER_COOLDOWN_SECONDS: z.coerce
      .number()
      .positive()
      .max(86_400)
      .default(30)
      .describe('how long an open circuit refuses steps before one trial step goes through'),
    DELEGATE_WEBHOOK_SECRET: z
      .string()
      .min(16)
      .optional()
      .describe("master HMAC-SHA256 key (16+ characters); each tenant's webhooks are signed with a key derived from it"),
    DELEGATE_WEBHOOK_SIGNATURE: z
      .enum(['standard', 'legacy'])
      .default('standard')
      .describe(
        'how webhooks are signed: standard (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature; whsec_ secrets) or legacy (also the deprecated delegate-signature header and hex secret, removed in the next release); set on the API and the worker',
      ),
    DELEGATE_APPROVAL_SECRET: z
      .string()
      .min(16)
      .optional()
      .describe(
        "master HMAC-SHA256 key (16+ characters) of the approvals' token URLs, each tenant's derived from it; default DELEGATE_WEBHOOK_SECRET; neither: no token URLs",
      ),
    DELEGATE_DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'a postgres:// URL')
      .optional()
      .describe('PostgreSQL URL of the durable record of finished jobs (default: the SQLite file DELEGATE_RECORD_FILE)'),
    DELEGATE_RECORD_FILE: z
      .string()
      .min(1)
      .default('.data/delegate.db')
      .describe('SQLite file of the durable record when DELEGATE_DATABASE_URL is unset'),
    DELEGATE_RECORD_MAX_AGE_DAYS: z.coerce
      .number()
      .positive()
      .max(36_500)
      .default(365)
      .describe('the prune schedule deletes records of jobs finished longer ago'),
    DELEGATE_RECORD_KEEP_LABELS: listOf('feature').describe('comma-separated label keys: records carrying one are never pruned'),
    DELEGATE_RECORD_PRUNE_EVERY: z
      .string()
      .regex(/^\d+\s*(s|m|h|d)$/, 'a duration like 30m, 1h or 1d')
      .default('1h')
      .describe('how often the prune schedule runs'),
    DELEGATE_RECORD_PRUNE_DRY_RUN: bool.default(false).describe('the prune schedule only lists what it would delete'),
    DELEGATE_CHAOS_ARCHIVE_HOLD_MS: z.coerce
      .number()
      .int()
      .min(0)
      .max(600_000)
      .default(0)
      .describe('fault-injection tests only: hold each archive write open this long before it commits'),
    DELEGATE_CHAOS_ARCHIVE_HOLD_AFTER_MS: z.coerce
      .number()
      .int()
      .min(0)
      .max(600_000)
      .default(0)
      .describe('fault-injection tests only: wait this long after an archive committed before reporting it'),
    // connection limits of the API server (schemas/server-limits.ts)
    ...SERVER_LIMITS_ENV,
    HOST: z.string().min(1).default('127.0.0.1').describe("the address the API listens on (and the worker's /metrics)"),
    PORT: port.default(3000).describe('the port the API listens on'),
    PUBLIC_URL: z.url().optional().describe('base URL of the API as clients see it, for links; its host is allowed by the Host check'),
    DELEGATE_ALLOWED_HOSTS: list.describe(
      "comma-separated Host names (`name` any port, `name:port` exactly) the API answers; checked when set, and when bound to loopback or auth is off (default then: localhost, 127.0.0.1, [::1], HOST, PUBLIC_URL's host); others get 403 (DNS rebinding)",
    ),
    DELEGATE_ALLOWED_ORIGINS: list.describe(
      'comma-separated exact Origins (`https://app.example`) browsers may send when the Host check is on; unset: any http(s) Origin whose host passes the Host check',
    ),
    LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info')
      .describe("pino level of the API, the worker and the SDK's own lines"),
    DELEGATE_STACK_STATUS_FILE: z
      .string()
      .min(1)
      .optional()
      .describe("set by npm start and npm run cluster: the supervisor's file of its children's states, which /readyz reports"),
    DELEGATE_LOG_FORMAT: z
      .enum(['pretty', 'json'])
      .default('pretty')
      .describe("npm start: pretty-print the processes' JSON log lines, or pass them through as they are"),
    DELEGATE_TEMPORAL_UI_WRITES: bool
      .default(false)
      .describe(
        "npm start: the dev server's Web UI may terminate, cancel, signal, reset and start workflows (default: it only reads and queries; anyone on the machine reaches it without a credential)",
      ),
    DELEGATE_WORKER_METRICS_PORT: port.default(9464).describe("port of the worker's Prometheus /metrics (on HOST); 0 turns it off"),
    DELEGATE_METRICS_TOKEN: z
      .string()
      .min(16)
      .optional()
      .describe('bearer token Prometheus must send to /metrics of the API and the worker (unset: open)'),
    DELEGATE_OTEL_CAPTURE_CONTENT: bool
      .default(false)
      .describe("traced workers: put LLM agents' prompts and completions in their model-call spans (they may hold anything a tenant sent)"),
    DELEGATE_OTEL_GENAI_COST: bool
      .default(false)
      .describe(
        'traced workers: the GenAI cost attributes still under review (gen_ai.usage.cost.amount, currency, source) on model-call spans',
      ),
    DELEGATE_WEBHOOK_ALLOW_LOOPBACK: bool
      .default(false)
      .describe('allow callbackUrls to loopback, also over plain http (development only)'),
    DELEGATE_WEBHOOK_ALLOW_CIDRS: list.describe(
      'comma-separated CIDRs webhooks may reach although private ("10.20.0.0/16,fd12::/16"); metadata addresses stay refused',
    ),
    DELEGATE_WEBHOOK_ALLOW_HOSTS: list.describe('comma-separated host names whose private addresses webhooks may reach'),
    DELEGATE_MCP_ALLOW_LOOPBACK: bool
      .default(false)
      .describe("allow LLM agents' HTTP MCP servers on loopback, also over plain http (development only)"),
    DELEGATE_MCP_ALLOW_CIDRS: list.describe(
      'comma-separated CIDRs HTTP MCP servers may be reached in although private ("10.20.0.0/16"); metadata addresses stay refused',
    ),
    DELEGATE_MCP_ALLOW_HOSTS: list.describe('comma-separated host names of HTTP MCP servers whose private addresses may be reached'),
    DELEGATE_SCOUT_ROOT: z
      .string()
      .min(1)
      .optional()
      .describe(
        'the only tree code scouts may read (unset: scouts are off; never the working directory); dot-entries and secret-bearing files (keys, certificates, env files, credentials, databases, logs, backups) are denied whatever the root; API and workers must agree',
      ),
    DELEGATE_SCOUT_ROOTS: z
      .string()
      .regex(
        /^\s*([a-z0-9][a-z0-9_-]{0,63}=\/[^,]*)?(\s*,\s*[a-z0-9][a-z0-9_-]{0,63}=\/[^,]*)*\s*$/,
        'tenant=/absolute/dir pairs, comma-separated',
      )
      .optional()
      .describe('per-tenant scout roots, `tenant=/abs/dir,...`: a tenant listed here reads its own tree instead of DELEGATE_SCOUT_ROOT'),
    DELEGATE_SCOUT_ALLOW: list
      .refine(
        (globs) => globs.every((g) => !g.startsWith('/') && !g.split('/').includes('..')),
        'globs relative to the scout root, without ".."',
      )
      .describe(
        'comma-separated globs the scout may read although a deny pattern names them (`docs/*.log,fixtures/certs/**`; a glob without "/" matches a name at any depth, `dir/**` a whole tree); a file holding a private key stays refused; API and workers must agree',
      ),
    DELEGATE_SCOUT_AGENT: z
      .string()
      .min(1)
      .default('scout')
      .describe('the agent scouts run on: the builtin offline `scout`, or an LLM agent with hostTools read_file and grep'),
    DELEGATE_SCOUT_CAP_PER_SESSION: z.coerce
      .number()
      .int()
      .positive()
      .max(10_000)
      .default(10)
      .describe('scouts one parent session may dispatch'),
    DELEGATE_SCOUT_CAP_PER_SCOPE: z.coerce
      .number()
      .int()
      .positive()
      .max(10_000)
      .default(3)
      .describe('scouts one parent session may send over the same scope'),
    DELEGATE_SCOUT_REPORT_TOKENS: z.coerce
      .number()
      .int()
      .min(100)
      .max(100_000)
      .default(500)
      .describe("a scout report's size cap, in tokens of its JSON"),
    DELEGATE_SCOUT_TOKENIZER: z
      .enum(['o200k', 'cl100k'])
      .default('o200k')
      .describe('the BPE the report size is counted with: o200k (GPT-4o and later) or cl100k (GPT-4, GPT-3.5)'),
    DELEGATE_EMBEDDINGS_URL: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe(
        'base URL of an OpenAI-compatible embeddings API (POST {url}/embeddings), e.g. https://api.openai.com/v1; unset: semantic routing ranks with BM25',
      ),
    DELEGATE_EMBEDDINGS_MODEL: z
      .string()
      .min(1)
      .optional()
      .describe('embedding model, e.g. text-embedding-3-small; required with DELEGATE_EMBEDDINGS_URL'),
    DELEGATE_EMBEDDINGS_API_KEY: z.string().min(1).optional().describe('bearer key of the embeddings API'),
    DELEGATE_SEMANTIC_MIN_SIMILARITY: z.coerce
      .number()
      .min(-1)
      .max(1)
      .default(0.3)
      .describe('embeddings path: a semantic route below this cosine similarity finds no agent (no_agent)'),
    DELEGATE_SEMANTIC_MIN_SCORE: z.coerce
      .number()
      .min(0)
      .max(1)
      .default(0.3)
      .describe('BM25 path: a semantic route below this normalised score (0..1) finds no agent (no_agent)'),
  })
  .superRefine((c, ctx) => {
    if (c.DELEGATE_EMBEDDINGS_URL && !c.DELEGATE_EMBEDDINGS_MODEL) {
      ctx.addIssue({
        code: 'custom',
        path: ['DELEGATE_EMBEDDINGS_MODEL'],
        message: 'required when DELEGATE_EMBEDDINGS_URL is set (e.g. text-embedding-3-small)',
      });
    }
  });
/** Validated configuration. */
export type Config = z.infer<typeof ConfigSchema>;
