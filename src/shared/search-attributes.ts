import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Search attributes every Arbor session carries, so the Web UI and `temporal workflow list` can filter sessions. */
export const rootSessionIdKey = defineSearchAttributeKey('ArborRootSessionId', SearchAttributeType.KEYWORD);
export const parentSessionIdKey = defineSearchAttributeKey('ArborParentSessionId', SearchAttributeType.KEYWORD);
export const statusKey = defineSearchAttributeKey('ArborStatus', SearchAttributeType.KEYWORD);
export const titleKey = defineSearchAttributeKey('ArborTitle', SearchAttributeType.TEXT);

/** Name and Temporal CLI type name of each attribute, for registration (`--search-attribute Name=Type`). */
export const arborSearchAttributes = [
  { name: rootSessionIdKey.name, type: 'Keyword' },
  { name: parentSessionIdKey.name, type: 'Keyword' },
  { name: statusKey.name, type: 'Keyword' },
  { name: titleKey.name, type: 'Text' },
] as const;
