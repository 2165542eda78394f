/** Custom search attributes: listing and filtering jobs in the API and the Temporal UI. */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** `fanout` | `pipeline` | `vote`. */
export const PATTERN_KEY = defineSearchAttributeKey('DelegatePattern', SearchAttributeType.KEYWORD);
/** `running`, then the job's outcome. */
export const STATUS_KEY = defineSearchAttributeKey('DelegateStatus', SearchAttributeType.KEYWORD);
/** The tenant that submitted the job. */
export const TENANT_KEY = defineSearchAttributeKey('DelegateTenant', SearchAttributeType.KEYWORD);
/** The job's labels as `key=value` keywords. */
export const LABELS_KEY = defineSearchAttributeKey('DelegateLabels', SearchAttributeType.KEYWORD_LIST);

/** `name=Type` pairs, as `temporal server start-dev --search-attribute` and `operator` take them. */
export const SEARCH_ATTRIBUTE_DEFINITIONS = {
  DelegatePattern: 'Keyword',
  DelegateStatus: 'Keyword',
  DelegateTenant: 'Keyword',
  DelegateLabels: 'KeywordList',
} as const;

/** Labels as the keyword list the UI can filter on. */
export function labelKeywords(labels: Record<string, string> = {}): string[] {
  return Object.entries(labels).map(([k, v]) => `${k}=${v}`);
}
