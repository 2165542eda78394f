/**
 * MCP elicitation from the attacker's side, with the SDK's own client over streamable HTTP: a
 * second session of the same tenant learns how relayed requests are numbered from its own
 * elicitation, then answers the first session's pending elicitation (ids guessed from its own,
 * and the very id, as if it had leaked). Every forged answer is refused with a clear error and
 * decides nothing; the session that was asked still decides its item.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { expect, it, onTestFinished } from 'vitest';
import type { InboxItem } from '../../schemas';
import { pollUntil, uniqueId, useListeningApp } from '../helpers';
import { authHeader, TEST_TENANTS } from '../tenants';

const listening = useListeningApp({}, null);

/** A session of the default tenant that elicits: each form's relayed id goes to `asked`, the answer is `answer`'s. */
async function elicitingSession(answer: (id: RequestId) => Promise<ElicitResult>) {
  const client = new Client({ name: 'delegate-elicit-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async (_req, extra) => answer(extra.requestId));
  const transport = new StreamableHTTPClientTransport(new URL(`${listening.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${TEST_TENANTS.default.key}` } },
  });
  await client.connect(transport);
  onTestFinished(() => client.close());
  return { client, transport };
}

/** A one-task fan-out whose task waits for approval, called with `waitSeconds` so the session is asked. */
const approvalJob = (jobId: string) => ({
  name: 'delegate_fanout',
  arguments: {
    jobId,
    tasks: [{ id: 't', question: 'needs a yes', agent: 'sim', params: { answer: 'ran' }, approval: { beforeStart: true } }],
    waitSeconds: 60,
  },
});

/** The job's inbox items, through the REST inbox. */
async function itemsOf(jobId: string, state: string): Promise<InboxItem[]> {
  const res = await listening.app.inject({
    method: 'GET',
    url: `/v1/approvals?jobId=${jobId}&state=${state}`,
    headers: authHeader('default'),
  });
  return (res.json() as { items: InboxItem[] }).items;
}

it("a second session of the tenant cannot answer another session's elicitation; relayed ids are random", async () => {
  // the attacker's own elicitation, answered as usual: its id is what it learns the numbering from
  const attackerIds: RequestId[] = [];
  const attacker = await elicitingSession(async (id) => (attackerIds.push(id), { action: 'accept', content: { decision: 'approve' } }));
  await attacker.client.callTool(approvalJob(uniqueId('elicit-own')));
  expect(attackerIds).toHaveLength(1);

  // the victim's elicitation waits for its person until `release`
  const victimIds: RequestId[] = [];
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const victim = await elicitingSession(async (id) => {
    victimIds.push(id);
    await released;
    return { action: 'decline' };
  });
  const jobId = uniqueId('elicit-victim');
  const call = victim.client.callTool(approvalJob(jobId));
  // awaited below; a failed check before then closes the client under it
  call.catch(() => undefined);
  await pollUntil(async () => victimIds.length === 1, 'the victim was never asked');

  // forged answers from the attacker's session: ids next to its own, and the victim's very id
  const own = attackerIds[0]!;
  const guesses: RequestId[] = typeof own === 'number' ? Array.from({ length: 20 }, (_, i) => own + 1 + i) : [];
  const forged = [...guesses, victimIds[0]!];
  const accepted: RequestId[] = [];
  const refusals: string[] = [];
  for (const id of forged) {
    await attacker.transport.send({ jsonrpc: '2.0', id, result: { action: 'accept', content: { decision: 'approve' } } }).then(
      () => accepted.push(id),
      (err: Error & { code?: number }) => refusals.push(`${err.code}: ${err.message}`),
    );
  }
  const decidedByAttacker = (await itemsOf(jobId, 'approved')).length;
  expect({ accepted: accepted.length, decidedByAttacker }).toEqual({ accepted: 0, decidedByAttacker: 0 });
  expect(refusals).toHaveLength(forged.length);
  expect(refusals[0]).toMatch(/^400: .*no request of this session/);
  expect((await itemsOf(jobId, 'pending')).map((i) => i.kind)).toEqual(['approval']);

  // the session that was asked still decides it
  release();
  await call;
  expect(await itemsOf(jobId, 'rejected')).toMatchObject([{ note: 'declined through MCP elicitation', decidedBy: 'mcp:default' }]);
  // unguessable: a random UUID each, not a counter
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  expect([own, victimIds[0]]).toEqual([expect.stringMatching(uuid), expect.stringMatching(uuid)]);
});
