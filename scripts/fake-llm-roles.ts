/**
 * The fake provider's role models: scripted children that follow the bootstrap protocol, or
 * break it on purpose. The script is the model name up to an optional `#tag` (tests tag the
 * model to find their own requests): `role`, `role-twice` (bootstraps twice), `role-skip`
 * (never loads its skills), `role-wrongkind` (answers with a kind the task does not allow),
 * `role-ask` (follows the protocol, then asks for more information instead of answering),
 * `role-structured` (answers through the `structured_output` tool once it is offered).
 */

/** A chat message as the fake provider reads it. */
export interface FakeMessage {
  role: string;
  content: string | null;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** The scripts this module plays. */
export const ROLE_SCRIPTS = ['role', 'role-twice', 'role-skip', 'role-wrongkind', 'role-ask', 'role-wipe', 'role-structured'];

interface Task {
  question: string;
  subject?: string;
  allowedOutputKinds: string[];
  requiredSkills: string[];
}

type Turn = { tool_calls: { name: string; args: object }[] } | { content: string };

/** The calls made so far with their answers, in order. */
function history(messages: FakeMessage[]): { name: string; args: string; answer?: string }[] {
  const calls = messages.flatMap((m) => (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, args: c.function.arguments })));
  return calls.map((c) => ({
    name: c.name,
    args: c.args,
    answer: messages.find((m) => m.role === 'tool' && m.tool_call_id === c.id)?.content ?? undefined,
  }));
}

/** A candidate of `kind` for the task. */
function candidate(kind: string, task: Task, found: string): object {
  const findings = [{ title: 'Main point', detail: found || task.question }];
  if (kind === 'review')
    return { kind, subject: task.subject ?? task.question, verdict: 'comment', summary: `Reviewed: ${task.question}`, findings };
  if (kind === 'report') return { kind, summary: `Report: ${task.question}`, findings };
  if (kind === 'answer') return { kind, text: found || task.question };
  return { kind: 'draft', title: task.question.slice(0, 100), body: found || task.question };
}

/** The next turn of role script `script` over the conversation so far, offered `tools`. */
export function roleTurn(script: string, messages: FakeMessage[], tools: string[]): Turn {
  const calls = history(messages);
  const boot = calls.find((c) => c.name === 'delegation_bootstrap' && c.answer && !c.answer.startsWith('error'));
  if (!boot) return { tool_calls: [{ name: 'delegation_bootstrap', args: {} }] };
  const task = JSON.parse(boot.answer!) as Task;
  if (script === 'role-twice' && calls.filter((c) => c.name === 'delegation_bootstrap').length === 1)
    return { tool_calls: [{ name: 'delegation_bootstrap', args: {} }] };
  const loaded = calls
    .filter((c) => c.name === 'load_skill' && c.answer && !c.answer.startsWith('error'))
    .map((c) => (JSON.parse(c.args) as { skill: string }).skill);
  const missing = task.requiredSkills.filter((s) => !loaded.includes(s));
  if (script !== 'role-skip' && missing.length) return { tool_calls: missing.map((skill) => ({ name: 'load_skill', args: { skill } })) };
  // "role-wipe": calls the MCP test servers' wipe, offered or not
  if (script === 'role-wipe') return { tool_calls: [{ name: 'web__wipe', args: {} }] };
  const own = tools.filter((t) => t !== 'delegation_bootstrap' && t !== 'load_skill' && t !== 'structured_output');
  const used = calls.find((c) => own.includes(c.name));
  // an MCP tool (`<server>__<tool>`: the test servers' lookup) takes {term}, the HTTP search {query}
  if (own.length && !used)
    return { tool_calls: [{ name: own[0], args: own[0].includes('__') ? { term: task.question } : { query: task.question } }] };
  if (script === 'role-ask')
    return {
      content: JSON.stringify({
        result: { decision: 'need_more_information', reason: `which lines of ${task.subject ?? 'the subject'}?` },
      }),
    };
  const found = used?.answer && !used.answer.startsWith('error') ? used.answer : '';
  const kind =
    script === 'role-wrongkind'
      ? ['draft', 'answer', 'report', 'review'].find((k) => !task.allowedOutputKinds.includes(k))!
      : task.allowedOutputKinds[0];
  if (script === 'role-structured' && tools.includes('structured_output'))
    return { tool_calls: [{ name: 'structured_output', args: { result: candidate(kind, task, found) } }] };
  return { content: JSON.stringify({ result: candidate(kind, task, found) }) };
}
