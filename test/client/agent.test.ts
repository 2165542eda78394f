/** The typed client's `agent(id)`: the manifest and the shared breaker, `null` for builtin agents, a 404 problem for an unknown id. */
import { afterAll, describe, expect, it } from 'vitest';
import { createDelegateClient, DelegateProblemError } from 'delegate/client';
import { listeningApp } from '../helpers';
import { TEST_TENANTS } from '../tenants';

const { app, url: baseUrl } = await listeningApp({}, null);
afterAll(() => app.close());
const delegate = createDelegateClient({ baseUrl, apiKey: TEST_TENANTS.default.key });

describe('client: agent(id)', () => {
  it('reads an agent with its breaker', async () => {
    expect(await delegate.agent('echo')).toMatchObject({ id: 'echo', kind: 'builtin', breaker: null });
    const remote = await delegate.agent('bulky-http');
    expect(remote).toMatchObject({
      id: 'bulky-http',
      kind: 'http',
      breaker: { state: 'closed', failureThreshold: 5, cooldownSeconds: 30 },
    });
    const err = await delegate.agent('no-such-agent').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DelegateProblemError);
    expect((err as DelegateProblemError).status).toBe(404);
  });
});
