/**
 * `read_file` and `grep` as tools a model can call: their function specs and how a call runs
 * on the sandbox. The answer is text for the model; a refused path is answered, not thrown,
 * so the model can correct itself (the tool was allowed, the path was not).
 *
 *   model tool call {name, arguments} ──runHostTool──> sandbox.readFile / sandbox.grep ──> text
 */
import type { ScoutTool } from '../../schemas/scout';
import { MAX_GREP_RESULTS, ScoutToolError, type ScoutSandbox } from './sandbox';

/** The chat-completions function spec of each host tool. */
export const HOST_TOOL_SPECS: Record<ScoutTool, { description: string; parameters: Record<string, unknown> }> = {
  read_file: {
    description: 'Read lines of a file inside the scope. Lines come numbered; cite file and line from them.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'file path relative to the project root' },
        offset: { type: 'integer', minimum: 1, description: '1-based first line (default 1)' },
        limit: { type: 'integer', minimum: 1, maximum: 2000, description: 'number of lines (default 400)' },
      },
      required: ['path'],
      additionalProperties: false,
    },
  },
  grep: {
    description: 'Search the files of the scope (or one file or directory of it) for a regular expression (RE2 syntax) or literal text.',
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'RE2 regular expression, or literal text' },
        path: { type: 'string', description: 'a file or directory inside the scope (default: the whole scope)' },
        ignore_case: { type: 'boolean' },
        literal: { type: 'boolean', description: 'search the pattern as plain text' },
        max_results: { type: 'integer', minimum: 1, maximum: MAX_GREP_RESULTS },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
  },
};

/** True for the name of a host tool. */
export const isHostTool = (name: string): name is ScoutTool => Object.hasOwn(HOST_TOOL_SPECS, name);

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const int = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? Math.floor(v) : undefined);

/** Runs one host tool call and returns the text the model gets back (an `error: …` line when refused). */
export async function runHostTool(sandbox: ScoutSandbox, name: ScoutTool, args: unknown): Promise<string> {
  const a = (args !== null && typeof args === 'object' ? args : {}) as Record<string, unknown>;
  try {
    if (name === 'read_file') {
      const path = str(a.path);
      if (!path) throw new ScoutToolError('bad_arguments', 'read_file needs "path"');
      const r = await sandbox.readFile(path, { offset: int(a.offset) ?? 1, limit: Math.min(int(a.limit) ?? 400, 2000) });
      const width = String(r.startLine + r.lines.length).length;
      const body = r.lines.map((l, i) => `${String(r.startLine + i).padStart(width)}\t${l}`).join('\n');
      const more = r.truncated
        ? `\n(lines ${r.startLine}–${r.startLine + r.lines.length - 1} of ${r.totalLines}; pass offset to read on)`
        : '';
      return `${r.file}\n${body}${more}`;
    }
    const pattern = str(a.pattern);
    if (!pattern) throw new ScoutToolError('bad_arguments', 'grep needs "pattern"');
    const r = await sandbox.grep(pattern, {
      path: str(a.path),
      ignoreCase: a.ignore_case === true,
      literal: a.literal === true,
      maxResults: int(a.max_results) ?? 50,
    });
    if (r.matches.length === 0) return 'no matches';
    return `${r.matches.map((m) => `${m.file}:${m.line}: ${m.text}`).join('\n')}${r.truncated ? '\n(more matches not shown: narrow the pattern or the path)' : ''}`;
  } catch (err) {
    if (err instanceof ScoutToolError) return `error: ${err.message}`;
    throw err;
  }
}
