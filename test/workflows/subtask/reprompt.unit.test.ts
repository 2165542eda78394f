/** The host's re-prompts: a research summary of other than 3–6 sentences (once), and the role protocol's. */
import { describe, expect, it } from 'vitest';
import type { PendingToolCall, ToolAnswer } from '../../../contracts/role';
import type { Role } from '../../../schemas';
import { RoleHost } from '../../../workflows/role-host';
import { newProtocolState } from '../../../workflows/role-protocol';
import { hostRules } from '../../../workflows/subtask/host-rules';
import { applyRoleNext, summaryReprompt } from '../../../workflows/subtask/reprompt';
import { manifest, output, running, T0, task } from './fixtures';

const contentOf = (a: ToolAnswer | undefined): string => (a && 'content' in a ? a.content : '');
const research = task({ research: { parentId: null } });
const v1 = hostRules(1, []);
const done = (summary: string, t = research, allocation = {}) => {
  const s = running({ task: t, allocation });
  s.steps = 1;
  s.done = true;
  s.summary = summary;
  return s;
};

describe('summaryReprompt', () => {
  it('sends a research answer of one sentence back once, noting it', () => {
    const s = done('Only one sentence here.');
    expect(summaryReprompt(s, research, v1, T0)).toEqual({ error: 'summary of 1 sentences', why: 're-prompt for a 3–6 sentence summary' });
    expect(s).toMatchObject({ done: false, summaryReprompted: true, notes: ['summary re-prompted once: it had 1 sentence'] });
    expect(s.reprompt).toBe('Summary: Your summary has 1 sentence; write 3 to 6 sentences on what was found.');
    expect(s.awaitingSummary).toBe(true);
    // the second answer is kept whatever its length (the mapping trims it)
    s.done = true;
    s.reprompt = undefined;
    s.awaitingSummary = false;
    expect(summaryReprompt(s, research, v1, T0)).toBeNull();
    expect(s.done).toBe(true);
  });

  it('counts seven sentences as too many and four as right', () => {
    expect(summaryReprompt(done('A. B. C. D. E. F. G.'.replace(/([A-G])\./g, '$1 is so.')), research, v1, T0)?.error).toBe(
      'summary of 7 sentences',
    );
    expect(summaryReprompt(done('One is so. Two is so. Three is so. Four is so.'), research, v1, T0)).toBeNull();
  });

  it('leaves alone an answer not done, a task outside the contract, host rules 0, and an agent out of steps or budget', () => {
    const short = 'Short.';
    const notDone = done(short);
    notDone.done = false;
    expect(summaryReprompt(notDone, research, v1, T0)).toBeNull();
    expect(summaryReprompt(done(short, task()), task(), v1, T0)).toBeNull();
    expect(summaryReprompt(done(short), research, hostRules(undefined, []), T0)).toBeNull();
    const outOfSteps = done(short);
    outOfSteps.manifest = manifest({ limits: { timeoutSeconds: 30, maxSteps: 1 } });
    expect(summaryReprompt(outOfSteps, research, v1, T0)).toBeNull();
    const spent = done(short, research, { tokens: 5 });
    spent.ledger.spent.tokens = 5;
    expect(summaryReprompt(spent, research, v1, T0)).toBeNull();
    expect([notDone, outOfSteps, spent].every((s) => s.reprompt === undefined && s.notes.length === 0)).toBe(true);
  });
});

describe('the role protocol between steps', () => {
  const role: Role = {
    id: 'reviewer',
    persona: 'You review.',
    agent: 'llm',
    requiredSkills: ['checklist'],
    tools: ['search'],
    outputKinds: { review: ['review'] },
    maxOutputTokens: 1000,
    maxDepth: 1,
  };
  const roleTask = task({ role: 'reviewer', taskType: 'review' });
  const host = () => RoleHost.open(roleTask, {}, { role, protocol: newProtocolState(), finalReprompted: false });
  const calls = (...names: string[]): { pendingToolCalls: PendingToolCall[] } => ({
    pendingToolCalls: names.map((name, i) => ({ id: `c${i}`, name, arguments: name === 'load_skill' ? '{"skill":"checklist"}' : '{}' })),
  });

  it('re-prompts a final output given before the protocol, once, then fails it as invalid_output', async () => {
    const h = await host();
    const s = running({ task: roleTask });
    s.done = true;
    const first = applyRoleNext(s, await h.afterStep(output({ done: true })));
    expect(first).toMatchObject({ why: 're-prompt after a protocol error' });
    expect(s.done).toBe(false);
    expect(s.reprompt).toMatch(/^Protocol error: .*Follow the protocol, then answer again\.$/);
    expect(applyRoleNext(s, await h.afterStep(output({ done: true })))).toBe('halt');
    expect(s.reason).toBe('invalid_output');
    expect(s.errors.at(-1)).toMatch(/^protocol: /);
  });

  it('answers the bootstrap call for the next step, an early role tool with an error, and denies a tool outside the role as tool_denied', async () => {
    const h = await host();
    const s = running({ task: roleTask });
    expect(applyRoleNext(s, await h.afterStep(output({ state: calls('delegation_bootstrap') })))).toBe('go');
    const answers = h.stepFields().role.answers ?? [];
    expect(answers).toHaveLength(1);
    expect(JSON.parse(contentOf(answers[0]))).toMatchObject({ taskType: 'review' });
    // a role tool before the bootstrap is answered with an error; a tool outside the role's allowlist ends the task
    const early = await host();
    expect(applyRoleNext(s, await early.afterStep(output({ state: calls('search') })))).toBe('go');
    expect(contentOf(early.stepFields().role.answers?.[0])).toMatch(/^error: the first tool call must be delegation_bootstrap/);
    expect(applyRoleNext(s, await early.afterStep(output({ state: calls('shell') })))).toBe('halt');
    expect(s.reason).toBe('tool_denied');
    expect(s.errors.at(-1)).toMatch(/^role "reviewer": /);
  });
});
