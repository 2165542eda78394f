import { describe, expect, it } from 'vitest';
import { approvalKeyFor, readApprovalToken, signApprovalToken } from '../../api/inbox/tokens';
import { answerErrors } from '../../api/inbox/service';

const MASTER = 'master-secret-0123456789abcdef';

describe('approval tokens', () => {
  it('read back what they were signed with', () => {
    const t = signApprovalToken(MASTER, { tenant: 'acme', id: 'ap-1', expiresAt: 2_000_000_000 });
    expect(readApprovalToken(MASTER, t)).toEqual({ tenant: 'acme', id: 'ap-1', expiresAt: 2_000_000_000 });
  });

  it('refuse another master, an altered payload (another tenant, a later expiry) and garbage', () => {
    const t = signApprovalToken(MASTER, { tenant: 'acme', id: 'ap-1', expiresAt: 1 });
    expect(readApprovalToken('another-master-0123456789', t)).toBeUndefined();
    const [, mac] = t.split('.');
    const forged = Buffer.from(JSON.stringify({ t: 'beta', i: 'ap-1', e: 1 })).toString('base64url');
    expect(readApprovalToken(MASTER, `${forged}.${mac}`)).toBeUndefined();
    const later = Buffer.from(JSON.stringify({ t: 'acme', i: 'ap-1', e: 9e9 })).toString('base64url');
    expect(readApprovalToken(MASTER, `${later}.${mac}`)).toBeUndefined();
    for (const bad of ['', '.', 'abc', 'e30.', `${'a'.repeat(3000)}.x`]) expect(readApprovalToken(MASTER, bad)).toBeUndefined();
  });

  it('are signed per tenant', () => {
    expect(approvalKeyFor(MASTER, 'acme')).not.toBe(approvalKeyFor(MASTER, 'beta'));
  });
});

describe('answerErrors', () => {
  it("maps Ajv's text to field paths under body.answer", () => {
    expect(answerErrors("data/year must be integer, data must have required property 'city'")).toEqual([
      { path: 'body.answer.year', message: 'must be integer' },
      { path: 'body.answer', message: "must have required property 'city'" },
    ]);
  });
});
