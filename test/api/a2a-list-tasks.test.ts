/**
 * A2A `ListTasks` from the attacker's side: a contextId that cannot be a label value (quotes, a
 * backslash, 10 KB) is refused at once as invalid params (-32602), as SendMessage refuses it,
 * and never reaches the visibility query; a valid one still lists.
 */
import { describe, expect, it } from 'vitest';
import { useApp } from '../helpers';

const app = useApp();

type RpcAnswer = { id: number; error?: { code: number; message: string }; result?: { tasks: unknown[] } };

/** One JSON-RPC ListTasks as the caller's tenant, and how long its answer took. */
async function listTasks(params: Record<string, unknown>): Promise<{ answer: RpcAnswer; ms: number }> {
  const started = performance.now();
  const res = await app.inject({
    method: 'POST',
    url: '/a2a',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    payload: { jsonrpc: '2.0', id: 7, method: 'ListTasks', params },
  });
  expect(res.statusCode, res.body).toBe(200);
  return { answer: res.json() as RpcAnswer, ms: performance.now() - started };
}

describe('A2A ListTasks', () => {
  it.each([
    ['a double quote', 'ctx"x'],
    ['a quote that closes the label', 'x" OR DelegateTenant = "beta'],
    ['a single quote', "ctx'x"],
    ['a backslash', 'ctx\\x'],
    ['10 KB', 'c'.repeat(10_240)],
  ])('refuses a contextId with %s as invalid params within 1 s', async (_what, contextId) => {
    const { answer, ms } = await listTasks({ contextId });
    expect(answer.result).toBeUndefined();
    expect(answer.error).toMatchObject({ code: -32602, message: expect.stringMatching(/contextId/) });
    expect(ms).toBeLessThan(1000);
  });

  it('still lists a valid context (none of its tasks yet)', async () => {
    const { answer } = await listTasks({ contextId: 'team/room-1:thread@x+y' });
    expect(answer.error).toBeUndefined();
    expect(answer.result?.tasks ?? []).toEqual([]);
  });
});
