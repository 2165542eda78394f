/**
 * Code scouts: the trees they may read (API and workers must agree), the agent they run on, their caps and the size of a report.
 * Part of `ConfigSchema` (schemas/config.ts), under "Code scouts" in docs/reference/configuration.md.
 */
import { z } from 'zod';
import { list } from './values';

/** The code scouts variables. */
export const SCOUTS_ENV = {
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
};
