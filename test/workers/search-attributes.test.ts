/**
 * An upgrade that adds a search attribute: the worker registers what the namespace lacks at
 * start, or every job would fail to start its children (BadSearchAttributes).
 */
import type { Connection } from '@temporalio/client';
import Long from 'long';
import { describe, expect, it } from 'vitest';
import { ensureSearchAttributes } from '../../workers/search-attributes';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../../core/search-attributes';
import { pollUntil, testClient, uniqueId } from '../helpers';

describe("the namespace's search attributes", () => {
  it('a namespace that has none (or the old four) gets every one, once; a second start adds nothing', async () => {
    const client = await testClient();
    const connection = client.connection as Connection;
    const namespace = uniqueId('sa-upgrade');
    await client.connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: { seconds: Long.fromNumber(86_400) },
    });
    // the namespace as an older Delegate left it: the first four attributes only
    await pollUntil(
      async () =>
        client.connection.operatorService.listSearchAttributes({ namespace }).then(
          () => true,
          () => false,
        ),
      'namespace not ready',
    );
    await client.connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: { DelegatePattern: 2, DelegateStatus: 2, DelegateTenant: 2, DelegateLabels: 7 },
    });
    expect(await ensureSearchAttributes(connection, namespace)).toEqual(['DelegateAgent', 'DelegateFailureReason']);
    const { customAttributes } = await client.connection.operatorService.listSearchAttributes({ namespace });
    for (const name of Object.keys(SEARCH_ATTRIBUTE_DEFINITIONS)) expect(customAttributes?.[name], name).toBeDefined();
    expect(customAttributes?.DelegateLabels).toBe(7);
    expect(await ensureSearchAttributes(connection, namespace)).toEqual([]);
  });
});
