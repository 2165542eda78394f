/**
 * `scout`: the offline code scout, no model. It answers "where is X / who calls X / how does X
 * work" from the question's identifiers, through the sandbox's two tools only, deterministically.
 *
 *   question ──terms──> grep each (scope) ──rank lines: definitions, calls, assignments, rarity──>
 *   top ≤ 8 (≤ 2 per file) ──read_file around them (enclosing definition)──> ScoutAnswer
 */
import { z } from 'zod';
import { ErrorType } from '../../core/errors';
import type { Evidence } from '../../schemas/evidence';
import {
  SCOUT_ANSWER_JSON_SCHEMA,
  SCOUT_MAX_FINDINGS,
  SCOUT_TOOLS,
  scoutQuestion,
  type ScoutAnswer,
  type ScoutFinding,
  type ScoutRelevance,
} from '../../schemas/scout';
import { fatal } from '../errors';
import { createSandbox, ScoutToolError, type GrepMatch } from '../scout/sandbox';
import { countTokens } from '../scout/verify';
import {
  assignsTo,
  callsName,
  definedName,
  definitionRegex,
  isComment,
  isImport,
  matchedIdentifier,
  questionKind,
  searchTerms,
  type SearchTerm,
} from '../scout/terms';
import type { AgentDefinition, StepReply } from './types';

/** Options of the offline scout. */
export interface ScoutAgentOptions {
  /** The directory a tenant's scope paths are inside (the API's prep checks the same root); undefined: no root, the scout refuses. */
  rootFor: (tenant?: string) => string | undefined;
}

const ScoutParams = z.strictObject({
  paths: z.array(z.string().min(1).max(1024)).min(1).max(50).describe('the scope: files and directories relative to the scout root'),
});
type ScoutParams = z.infer<typeof ScoutParams>;

/** The answer's own target size in tokens: the report adds the parent's fields (question, excerpt, ids) to it. */
const ANSWER_TOKENS = 320;
/** Most grep and read_file calls one answer makes (fewer when the budget says so). */
const MAX_CALLS = 12;
const SCORE: Record<ScoutRelevance, number> = { high: 1, medium: 0.6, low: 0.3 };
/** A line that declares a type, an interface, an enum or a typed lookup table. */
const TYPE_LEVEL =
  /^\s*(?:export\s+)?(?:declare\s+)?(?:type|interface|enum)\s|^\s*(?:export\s+)?(?:const|let)\s+\w+\s*:\s*(?:Record|Map|ReadonlyMap|ReadonlySet|Set)</;

interface Hit extends GrepMatch {
  score: number;
  /** Whether it defines, calls, assigns or mentions the best term it matches. */
  role: 'defines' | 'calls' | 'assigns' | 'mentions';
  term: SearchTerm;
}

/** Scores each matched line: rarer terms, definitions (or calls, for "who calls"), assignments and file names weigh more; comments and tests less. */
function rank(
  matches: Map<string, GrepMatch>,
  terms: SearchTerm[],
  counts: number[],
  kind: ReturnType<typeof questionKind>,
  question: string,
): Hit[] {
  const weight = terms.map((t, i) => ((t.strong ? 4 : 1) * (t.pair ? 2 : 1)) / Math.log2(2 + counts[i]));
  const testsAsked = /\btests?\b|\bspec\b/i.test(question);
  const re = terms.map((t) => new RegExp(t.pattern, t.ignoreCase ? 'i' : ''));
  // the question's separate words (or names): a line that covers them all, by its text or its file's name, is likelier the answer
  const words = terms.flatMap((t, i) => (t.pair ? [] : [i]));
  const actionFound = terms.some((t, i) => t.action && counts[i] > 0);
  const hits: Hit[] = [];
  for (const m of matches.values()) {
    let score = 0;
    let best: { term: SearchTerm; w: number; role: Hit['role'] } | undefined;
    terms.forEach((t, i) => {
      const flags = t.ignoreCase ? 'i' : '';
      if (!new RegExp(t.pattern, flags).test(m.text)) return;
      const role: Hit['role'] = isImport(m.text)
        ? 'mentions'
        : definedName(m.text, definitionRegex(t.pattern, t.ignoreCase))
          ? 'defines'
          : callsName(m.text, t.pattern, t.ignoreCase)
            ? 'calls'
            : assignsTo(m.text, t.pattern, t.ignoreCase)
              ? 'assigns'
              : 'mentions';
      const bonus = { defines: kind === 'callers' ? 1 : 3, calls: kind === 'callers' ? 3 : 0.5, assigns: 1, mentions: 0 }[role];
      const w = weight[i] * (1 + bonus);
      score += w;
      if (!best || w > best.w) best = { term: t, w, role };
    });
    if (!best) continue;
    // a file named after the subject (circuit-breaker.ts) makes each of its matching lines likelier the answer
    terms.forEach((t, i) => {
      if (new RegExp(t.pattern, t.ignoreCase ? 'i' : '').test(m.file)) score += weight[i];
    });
    // "where is X opened": a line that does the action (assigns or calls what the verb names) answers it
    const doesAction =
      actionFound &&
      terms.some(
        (t, i) =>
          t.action && re[i].test(m.text) && (assignsTo(m.text, t.pattern, t.ignoreCase) || callsName(m.text, t.pattern, t.ignoreCase)),
      );
    // the question's words found in the line or its file; the line that does the action needs the subject's
    // name only in its file (`return open(failed, now)` in breaker-state.ts answers "where does the breaker open")
    if (words.length > 1) {
      const covered = words.filter((i) => re[i].test(m.text) || re[i].test(m.file)).length / words.length;
      score *= doesAction ? Math.max(covered, 0.75) ** 2 : covered ** 2;
    }
    if (actionFound && !terms.some((t, i) => t.action && re[i].test(m.text))) score *= 0.35;
    if (doesAction) score *= 2;
    // a type, an interface or a lookup table describes the subject; it does not answer where something happens
    if (actionFound && !doesAction && TYPE_LEVEL.test(m.text)) score *= 0.3;
    if (isComment(m.text)) score *= 0.4;
    if (isImport(m.text)) score *= 0.3;
    if (!testsAsked && /(^|\/)(test|tests|__tests__|spec)\/|\.(test|spec)\.[a-z]+$/.test(m.file)) score *= 0.3;
    hits.push({ ...m, score, role: best.role, term: best.term });
  }
  // deterministic: score, then file, then line
  return hits.sort((a, b) => b.score - a.score || a.file.localeCompare(b.file) || a.line - b.line);
}

const cut = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);
const pad = (s: string, min: number, tail: string) => (s.length >= min ? s : `${s} ${tail}`);

/** One ranked line as a finding: its role and enclosing definition make the explanation. */
function toFinding(h: Hit, top: number, inFn: string | undefined, compact: boolean): ScoutFinding {
  const where = inFn ? ` inside \`${inFn}\`` : '';
  const name =
    h.role === 'defines'
      ? definedName(h.text, definitionRegex(h.term.pattern, h.term.ignoreCase))
      : matchedIdentifier(h.text, h.term.pattern, h.term.ignoreCase);
  const id = name && /^[\w$]+$/.test(name) ? `\`${name}\`` : `"${h.term.label}"`;
  const what = {
    defines: h.term.strong ? `Defines ${id}: the definition asked about` : `Defines ${id}, named after the subject`,
    calls: `Calls ${id}${where}: a call site`,
    assigns: `Sets ${id}${where}: where that state changes`,
    mentions: `Mentions ${id}${where}`,
  }[h.role];
  return {
    file: h.file,
    line: h.line,
    // a cut with "…" still verifies, and a shorter line leaves room for more findings
    evidence: cut(h.text.trim(), compact ? 80 : 120),
    relevance: h.score >= 0.8 * top ? 'high' : h.score >= 0.45 * top ? 'medium' : 'low',
    explanation: cut(pad(`${what}.`, 20, `(line ${h.line}).`), compact ? 120 : 300),
  };
}

/** The offline scout over `root`. */
export function createScoutAgent({ rootFor }: ScoutAgentOptions): AgentDefinition<ScoutParams> {
  return {
    manifest: {
      id: 'scout',
      version: '1.0.0',
      description:
        'Read-only code scout: finds where a symbol is defined, called or set in the project files, with grep and read_file only (offline, no model).',
      kind: 'builtin',
      capabilities: ['scout', 'code-search'],
      inputSchema: z.toJSONSchema(ScoutParams) as Record<string, unknown>,
      outputSchema: SCOUT_ANSWER_JSON_SCHEMA,
      limits: { timeoutSeconds: 60, maxSteps: 2 },
      retry: { maxAttempts: 2, initialIntervalSeconds: 1, backoffCoefficient: 2, maximumIntervalSeconds: 5 },
      tools: [...SCOUT_TOOLS],
    },
    params: ScoutParams,
    // the host denies the step unless the task's scope allows both tools
    toolsFor: () => [...SCOUT_TOOLS],
    async step(req): Promise<StepReply> {
      const question = scoutQuestion(req.task.question);
      const compact = req.reprompt !== undefined;
      const sandbox = createSandbox(rootFor(req.tenant), req.params.paths);
      const scope = await sandbox.scope().catch((err: unknown) => {
        throw fatal(ErrorType.InvalidInput, err instanceof ScoutToolError ? err.message : 'scope refused', req.attempt);
      });
      const callCap = Math.min(MAX_CALLS, req.budgetLeft.toolCalls ?? Infinity);
      let calls = 0;
      const kind = questionKind(question);
      const terms = searchTerms(question);
      const counts: number[] = [];
      const matches = new Map<string, GrepMatch>();
      let ranOut = false;
      for (const t of terms) {
        if (calls >= callCap) {
          ranOut = true;
          break;
        }
        calls++;
        const r = await sandbox.grep(t.pattern, { ignoreCase: t.ignoreCase, maxResults: 200 });
        counts.push(r.truncated ? 1000 : r.matches.length);
        for (const m of r.matches) matches.set(`${m.file}:${m.line}`, m);
      }
      const searched = terms.slice(0, counts.length);
      const perFile = new Map<string, number>();
      const limit = compact ? 3 : SCOUT_MAX_FINDINGS;
      const ranked = rank(matches, searched, counts, kind, question);
      // far below the best is noise (a comment that shares one word): left out
      const floor = 0.1 * (ranked[0]?.score ?? 0);
      const chosen = ranked
        .filter((h) => {
          if (h.score < floor) return false;
          const n = perFile.get(h.file) ?? 0;
          if (n >= 2) return false;
          perFile.set(h.file, n + 1);
          return true;
        })
        .slice(0, limit);

      // read around the best hits, one window per file: the enclosing definition names the place
      const enclosing = new Map<string, string>();
      for (const file of [...new Set(chosen.map((h) => h.file))].slice(0, compact ? 2 : 4)) {
        if (calls >= callCap) break;
        const lines = chosen.filter((h) => h.file === file).map((h) => h.line);
        const from = Math.max(1, Math.min(...lines) - 40);
        calls++;
        const window = await sandbox.readFile(file, { offset: from, limit: Math.max(...lines) - from + 3 });
        for (const line of lines) {
          for (let i = line - from; i >= 0; i--) {
            const name = definedName(window.lines[i] ?? '');
            if (name) {
              enclosing.set(`${file}:${line}`, i === line - from ? '' : name);
              break;
            }
          }
        }
      }

      const top = chosen[0]?.score ?? 0;
      const findings = chosen.map((h) => toFinding(h, top, enclosing.get(`${h.file}:${h.line}`), compact));

      const labels = searched.map((t) => `"${t.label}"`).join(', ') || 'nothing (no searchable words in the question)';
      const best = chosen[0];
      const strongDef = best && best.role === 'defines' && (best.term.strong || best.term.pair);
      const confidence = !best
        ? 'low'
        : strongDef || (best.term.strong && chosen.length <= 3)
          ? 'high'
          : best.term.strong || best.term.pair
            ? 'medium'
            : 'low';
      const status: ScoutAnswer['status'] = findings.length === 0 ? (ranOut ? 'partial' : 'no_findings') : ranOut ? 'partial' : 'success';
      const compose = (kept: ScoutFinding[]): ScoutAnswer => {
        const others = kept.slice(1, compact ? 2 : 4).map((f) => `${f.file}:${f.line}`);
        const inBest = best && enclosing.get(`${best.file}:${best.line}`);
        const recommendation = best
          ? `Start at ${best.file}:${best.line}${inBest ? ` (in ${inBest})` : ''}${others.length ? `, then ${others.join(', ')}` : ''}. Read those lines, not whole files.${confidence === 'low' ? ' The match is by words only: ask again with the identifier in backticks to confirm.' : ''}`
          : `Nothing in ${scope.join(', ')} matches ${labels}. Check the spelling, widen scopePaths, or ask with the exact identifier in backticks (e.g. \`functionName\`).${ranOut ? ' The tool-call budget ran out before every term was searched.' : ''}`;
        return {
          findings: kept,
          confidence,
          recommendation: cut(pad(recommendation, 30, '(offline scout)'), 1000),
          files_inspected: sandbox.inspected(),
          status,
        };
      };
      // leave room in the report for the parent's own fields: the last (weakest) findings go first
      let answer = compose(findings);
      while (answer.findings.length > 1 && countTokens(JSON.stringify(answer)) > ANSWER_TOKENS)
        answer = compose(answer.findings.slice(0, -1));
      const evidence: Evidence[] = answer.findings.map((f) => ({
        id: `${f.file}:${f.line}`,
        source: 'code',
        title: `${f.file}:${f.line}`,
        url: `file://${f.file}#L${f.line}`,
        snippet: f.evidence,
        score: SCORE[f.relevance],
      }));
      return {
        done: true,
        usage: { toolCalls: calls },
        summary: best ? `${answer.findings.length} finding(s) for ${labels}; best ${best.file}:${best.line}` : `no findings for ${labels}`,
        data: answer,
        confidence: { high: 0.9, medium: 0.6, low: 0.3 }[confidence],
        evidence,
        citations: evidence.map((e) => e.url!),
        channelsHit: calls > counts.length ? ['grep', 'read_file'] : ['grep'],
      };
    },
  };
}
