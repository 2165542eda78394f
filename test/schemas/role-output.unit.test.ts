import { describe, expect, it } from 'vitest';
import { checkRoleOutput, unwrapEnvelope } from '../../schemas/role-output';
import { RoleSchema } from '../../schemas/role';

const finding = (i: number) => ({ title: `f${i}`, detail: `detail ${i}` });
const review = (extra: object = {}) => ({
  result: { kind: 'review', subject: 'PR 12', verdict: 'approve', summary: 'fine', findings: [finding(1)], ...extra },
});

describe('role output', () => {
  it('accepts an allowed kind and a decision', () => {
    expect(checkRoleOutput(review(), { allowedKinds: ['review'], subject: 'PR 12' })).toMatchObject({ ok: true });
    expect(
      checkRoleOutput({ result: { decision: 'need_more_information', reason: 'which PR?' } }, { allowedKinds: ['review'] }),
    ).toMatchObject({ ok: true });
  });

  it('refuses a kind the task does not allow, naming the allowed ones', () => {
    const r = checkRoleOutput({ result: { kind: 'answer', text: 'x' } }, { allowedKinds: ['review', 'report'] });
    expect(r).toEqual({ ok: false, error: expect.stringMatching(/"answer" is not allowed .*review, report/) });
  });

  it('refuses more than four findings, a decision outside the branch, and extra fields', () => {
    expect(checkRoleOutput(review({ findings: [1, 2, 3, 4, 5].map(finding) }), { allowedKinds: ['review'] })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/findings/),
    });
    expect(checkRoleOutput(review({ findings: [1, 2, 3, 4].map(finding) }), { allowedKinds: ['review'] })).toMatchObject({ ok: true });
    expect(checkRoleOutput({ result: { decision: 'escalate', reason: 'r' } }, { allowedKinds: ['review'] }).ok).toBe(false);
    expect(checkRoleOutput(review({ mood: 'happy' }), { allowedKinds: ['review'] }).ok).toBe(false);
  });

  it("checks a review's subject against the task's", () => {
    expect(checkRoleOutput(review(), { allowedKinds: ['review'], subject: 'PR 13' })).toEqual({
      ok: false,
      error: expect.stringMatching(/subject "PR 12" is not the task's subject "PR 13"/),
    });
  });

  it('unwraps a fenced envelope and refuses text that is not JSON or has no result root', () => {
    expect(unwrapEnvelope('```json\n{"a":1}\n```')).toBe('{"a":1}');
    expect(checkRoleOutput('```json\n' + JSON.stringify(review()) + '\n```', { allowedKinds: ['review'] }).ok).toBe(true);
    expect(checkRoleOutput('looks good to me', { allowedKinds: ['review'] }).ok).toBe(false);
    expect(checkRoleOutput({ kind: 'review' }, { allowedKinds: ['review'] })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/object root/),
    });
  });

  it('requires at least one task type in a role', () => {
    const base = { id: 'r', persona: 'p', agent: 'a' };
    expect(RoleSchema.safeParse({ ...base, outputKinds: {} }).success).toBe(false);
    expect(RoleSchema.safeParse({ ...base, outputKinds: { t: ['memo'] } }).success).toBe(false);
    expect(RoleSchema.parse({ ...base, outputKinds: { t: ['report'] } })).toMatchObject({
      maxOutputTokens: 16_384,
      requiredSkills: [],
      tools: [],
    });
  });
});
