/**
 * What the offline scout searches for: the identifiers a question names (backticked, quoted,
 * camelCase, snake_case, dotted), else its uncommon words and their adjacent pairs as one
 * identifier (`circuit breaker` → /circuit[\s_-]?breaker/i matches `createCircuitBreaker`), and
 * how to tell a definition from a use. Pure: the scout agent runs the searches.
 */

/** One thing to grep for. */
export interface SearchTerm {
  /** How it reads in the report, e.g. `computeBackoff` or `circuit breaker`. */
  label: string;
  /** RE2- and JS-compatible regex source (escaped when it came from a name). */
  pattern: string;
  ignoreCase: boolean;
  /** Named by the question as an identifier (weighs more than a word). */
  strong: boolean;
  /** Two words joined (weighs more than one word). */
  pair: boolean;
  /** A word for what happens ("opened", "cancelled"): lines that do not match one weigh less. */
  action: boolean;
}

/** What the question wants: the definition, the callers, or how it works (definition and body). */
export type QuestionKind = 'where' | 'callers' | 'how';

const STOP = new Set(
  (
    'a about after all also an and any are as at be been before being both but by can code could did do does doing done each find for from get gets ' +
    'happen happens has have here how i if in into is it its just like look make many may me more most much must my need no not of on once one only or ' +
    'other our out over same see set should show so some such than that the their them then there these they thing this those through to under up use ' +
    'used uses using very was way we what when where which while who whom why will with work works would you your file files function method class ' +
    'called calls call caller callers defined define definition implemented implement implementation handled handle logic part project code'
  ).split(' '),
);

const escape = (s: string) => s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
/** A light stem, matched as a prefix: `opened` → `open`, `cancelled` → `cancel`, `retries` → `retry`, `calls` → `call`. */
export function stem(w: string): string {
  if (w.length <= 3) return w;
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length <= 5) return w.replace(/s$/, '');
  const base = w.replace(/(?:ing|ed|es|s)$/, '');
  // cancelled → cancell → cancel, stopped → stopp → stop
  return base !== w && /([b-df-hj-np-tv-z])\1$/.test(base) ? base.slice(0, -1) : base;
}

/** Words that say what happens to the subject ("where is the circuit opened"): the lines that do it are the answer. */
const isAction = (w: string) =>
  /[^e]ed$|[^aeiou]en$/.test(w) ||
  [
    'set',
    'thrown',
    'sent',
    'built',
    'run',
    'made',
    'read',
    'written',
    'hit',
    'reset',
    'closed',
    'created',
    'freed',
    'stored',
    'saved',
  ].includes(w);

/** Identifier-looking tokens worth searching verbatim. */
function identifiers(question: string): string[] {
  const found: string[] = [];
  const add = (s: string) => {
    const t = s.replace(/\(\)$/, '').trim();
    if (t.length >= 2 && !found.includes(t)) found.push(t);
  };
  for (const m of question.matchAll(/`([^`]{1,200})`/g)) add(m[1]);
  for (const m of question.matchAll(/"([^"]{2,200})"|'([^'\s][^']{1,199})'/g)) add(m[1] ?? m[2]);
  const rest = question.replace(/`[^`]*`|"[^"]*"/g, ' ');
  for (const m of rest.matchAll(/[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\(\))?/g)) {
    const t = m[0];
    if (/[a-z][A-Z]/.test(t) || /^[A-Z][a-z0-9]+[A-Z]/.test(t) || /[A-Za-z0-9]_[A-Za-z0-9]/.test(t) || /\w\.\w/.test(t) || /\(\)$/.test(t))
      add(t);
  }
  return found;
}

/** The terms of a question, strongest first (at most `max`). */
export function searchTerms(question: string, max = 6): SearchTerm[] {
  const terms: SearchTerm[] = [];
  for (const id of identifiers(question)) {
    // a dotted name is searched by its last part: `breaker.failed` is defined as `failed`
    const last = /^[\w$.]+$/.test(id) && id.includes('.') ? id.slice(id.lastIndexOf('.') + 1) : id;
    terms.push({
      label: last,
      pattern: /^[\w$]+$/.test(last) ? `\\b${escape(last)}\\b` : escape(last),
      ignoreCase: false,
      strong: true,
      pair: false,
      action: false,
    });
  }
  if (terms.length > 0) return terms.slice(0, max);
  const words = question
    .toLowerCase()
    .split(/[^a-z0-9_]+/)
    .filter((w) => w.length >= 3 && !STOP.has(w));
  const singles: SearchTerm[] = [];
  for (const w of words) {
    if (!singles.some((t) => t.label === w))
      singles.push({ label: w, pattern: escape(stem(w)), ignoreCase: true, strong: false, pair: false, action: isAction(w) });
  }
  for (let i = 0; i + 1 < words.length && terms.length < 2; i++) {
    terms.push({
      label: `${words[i]} ${words[i + 1]}`,
      pattern: `${escape(words[i])}[\\s_-]?${escape(stem(words[i + 1]))}`,
      ignoreCase: true,
      strong: false,
      pair: true,
      action: false,
    });
  }
  // what happens first: it must survive the cap
  terms.push(...singles.filter((t) => t.action), ...singles.filter((t) => !t.action));
  return terms.slice(0, max);
}

/** What the question asks for. */
export function questionKind(question: string): QuestionKind {
  const q = question.toLowerCase();
  if (/\b(who|what)\s+(calls|uses|invokes)\b|\bcallers?\b|\bcalled\s+from\b|\bwhere\s+.*\b(called|used|invoked)\b|\busages?\b/.test(q))
    return 'callers';
  if (/\bhow\s+(does|do|is|are)\b|\bexplain\b|\bflow\b|\bwork/.test(q)) return 'how';
  return 'where';
}

const DEF_HEAD = String.raw`(?:^|[\s(])(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\*?|class|interface|type|enum|const|let|var|def|fn|func|struct|trait|namespace)\s+`;
// `for (…) {` and `if (…) {` look like methods: keywords are never method names
const METHOD_HEAD = String.raw`^\s*(?:(?:public|private|protected|static|async|readonly|override|get|set)\s+)*(?!(?:if|for|while|switch|catch|with|return|function|else)\b)`;

/** A regex for a line that defines a name matching `name` (a regex source), capturing the defined name; `blocks` leaves out plain variables. */
export function definitionRegex(name: string, ignoreCase = false, blocks = false): RegExp {
  const n = `([\\w$]*(?:${name})[\\w$]*)`;
  return new RegExp(
    [
      `${blocks ? DEF_HEAD.replace('|const|let|var', '') : DEF_HEAD}${n}`,
      // a method or object-literal function: `name(args) {`, `name: (args) =>`, `name = async () =>`
      `${METHOD_HEAD}${n}\\s*(?:<[^>]*>)?\\([^)]*\\)\\s*(?::\\s*[^{;=]+)?\\{\\s*$`,
      `(?:^|[\\s{,])${n}\\s*[:=]\\s*(?:async\\s*)?(?:function\\b|\\([^)]*\\)\\s*(?::\\s*[^=]+)?=>|[A-Za-z_$][\\w$]*\\s*=>)`,
    ].join('|'),
    ignoreCase ? 'i' : '',
  );
}

/** A function, method or class definition (no plain variables): the enclosing block of a line. */
export const ENCLOSING_DEFINITION = definitionRegex('[A-Za-z_$][\\w$]*', false, true);

/** The name a definition line defines, if it is one. */
export function definedName(line: string, re: RegExp = ENCLOSING_DEFINITION): string | undefined {
  const m = re.exec(line);
  return m ? m.slice(1).find((g) => g !== undefined) : undefined;
}

/** True for a line that is (only) a comment. */
export const isComment = (line: string) => /^\s*(?:\/\/|\/?\*|#(?!!)|--|<!--)/.test(line);

/** True for a line that assigns to a name matching `name` (`x.openUntil = …`, not `==` or `=>`). */
export const assignsTo = (line: string, name: string, ignoreCase: boolean) =>
  new RegExp(`[\\w$]*(?:${name})[\\w$]*\\s*(?:[-+*/|&]?=)(?![=>])`, ignoreCase ? 'i' : '').test(line);

/** The identifier on a line that contains a match of `name` (e.g. `openUntil` for `open`), or undefined. */
export function matchedIdentifier(line: string, name: string, ignoreCase: boolean): string | undefined {
  return new RegExp(`[\\w$]*(?:${name})[\\w$]*`, ignoreCase ? 'i' : '').exec(line)?.[0];
}

/** True for an import or require line: it names a symbol without saying anything about it. */
export const isImport = (line: string) =>
  /^\s*(?:import\b|export\s+(?:\*|\{[^}]*\})\s+from\b|(?:const|let|var)\s+.*=\s*require\(|from\s+\S+\s+import\b)/.test(line);

/** True for a line that calls a name matching `name`. */
export const callsName = (line: string, name: string, ignoreCase: boolean) =>
  new RegExp(`[\\w$]*(?:${name})[\\w$]*\\s*\\(`, ignoreCase ? 'i' : '').test(line);
