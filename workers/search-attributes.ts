/**
 * Registers Delegate's search attributes in the namespace at worker start. A subtask or job
 * started with an attribute the namespace does not know fails its parent's workflow task
 * over and over (BadSearchAttributes), so an upgrade that adds one must register it before
 * the new code starts children: the dev server registers its own only when it creates its
 * database, and a self-hosted cluster only what its operator added.
 */
import type { Connection } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../core/search-attributes';

/** Temporal API's IndexedValueType numbers (wire values, stable; the proto module is CommonJS and type-only here). */
const TYPES: Record<string, temporal.api.enums.v1.IndexedValueType> = {
  Keyword: 2,
  KeywordList: 7,
};

/** Adds the attributes the namespace lacks; returns their names (none when all are there). */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = Object.entries(SEARCH_ATTRIBUTE_DEFINITIONS).filter(([name]) => !customAttributes?.[name]);
  if (missing.length === 0) return [];
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map(([name, type]) => [name, TYPES[type]])),
  });
  return missing.map(([name]) => name);
}

/** The command an operator runs when the worker may not register them itself (e.g. Temporal Cloud: use its UI or tcld). */
export function registerCommand(namespace: string): string {
  return Object.entries(SEARCH_ATTRIBUTE_DEFINITIONS)
    .map(([name, type]) => `temporal operator search-attribute create --namespace ${namespace} --name ${name} --type ${type}`)
    .join('\n');
}
