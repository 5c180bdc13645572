import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Search attributes every Arbor session carries, so the Web UI and `temporal workflow list` can filter sessions. */
export const rootSessionIdKey = defineSearchAttributeKey('ArborRootSessionId', SearchAttributeType.KEYWORD);
export const parentSessionIdKey = defineSearchAttributeKey('ArborParentSessionId', SearchAttributeType.KEYWORD);
export const statusKey = defineSearchAttributeKey('ArborStatus', SearchAttributeType.KEYWORD);
export const titleKey = defineSearchAttributeKey('ArborTitle', SearchAttributeType.TEXT);
/** Root sessions: the tokens (prompt + completion) and the cost in US dollars their whole tree has used, as of their last turn. */
export const totalTokensKey = defineSearchAttributeKey('ArborTotalTokens', SearchAttributeType.INT);
export const costUsdKey = defineSearchAttributeKey('ArborCostUsd', SearchAttributeType.DOUBLE);
/** Sessions made by `session.fork()`: the id of the session each was forked from (`ArborForkedFrom = '<id>'` lists a session's forks). */
export const forkedFromKey = defineSearchAttributeKey('ArborForkedFrom', SearchAttributeType.KEYWORD);

/** Name and Temporal CLI type name of each attribute, for registration (`--search-attribute Name=Type`). */
export const arborSearchAttributes = [
  { name: rootSessionIdKey.name, type: 'Keyword' },
  { name: parentSessionIdKey.name, type: 'Keyword' },
  { name: statusKey.name, type: 'Keyword' },
  { name: titleKey.name, type: 'Text' },
  { name: totalTokensKey.name, type: 'Int' },
  { name: costUsdKey.name, type: 'Double' },
  { name: forkedFromKey.name, type: 'Keyword' },
] as const;
