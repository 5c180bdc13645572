import type { SearchAttributePair } from '@temporalio/common';
import { workflowInfo } from '@temporalio/workflow';
import type { SessionStatus } from '../shared/session.js';
import { parentSessionIdKey, rootSessionIdKey, statusKey, titleKey } from '../shared/search-attributes.js';
import type { SessionIdentity } from './session-identity.js';
import { textAttributeValue } from '../shared/text-attribute.js';
import { neutralTitle } from '../shared/neutral-title.js';

/** The search attributes that place a session in its tree (root, parent, title) and show its status. */
export function identityAttributes(
  identity: Pick<SessionIdentity, 'root_session_id' | 'parent_session_id' | 'title'>,
  status: SessionStatus,
): SearchAttributePair[] {
  return [
    { key: rootSessionIdKey, value: identity.root_session_id },
    { key: titleKey, value: textAttributeValue(identity.title) },
    { key: statusKey, value: status },
    ...(identity.parent_session_id ? [{ key: parentSessionIdKey, value: identity.parent_session_id }] : []),
  ];
}

/**
 * Whether this run started with its identity attributes already set (a parent sets them when it starts a sub-agent),
 * so no upsert, and no history event, is needed. Read from the start event, so replay decides the same way.
 */
export function startedWithIdentity(): boolean {
  return workflowInfo().typedSearchAttributes.get(rootSessionIdKey) !== undefined;
}

/** The identity as Temporal's visible fields show it: with the neutral title for a session given `neutral_titles`. */
export function visibleIdentity<T extends Pick<SessionIdentity, 'title'>>(identity: T, neutralTitles: true | undefined): T {
  return neutralTitles ? { ...identity, title: neutralTitle } : identity;
}
