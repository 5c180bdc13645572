import type { Client } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import { rootSessionIdKey, statusKey, titleKey } from '../shared/search-attributes.js';
import { textAttributeValue } from '../shared/text-attribute.js';

/**
 * The search attributes a root session starts with: its tree (itself), its title and `idle`, the status its first
 * workflow task would write. A session started with them writes none of them (`startedWithIdentity()`), so its first
 * workflow task makes no search-attribute write of its own, and it is in visibility, listed by `arbor list`, from its
 * first moment, as a sub-agent is.
 */
export function identityAtStart(sessionId: string, title: string): SearchAttributePair[] {
  return [
    { key: rootSessionIdKey, value: sessionId },
    { key: titleKey, value: textAttributeValue(title) },
    { key: statusKey, value: 'idle' },
  ];
}

/**
 * Whether the client's namespace has the attributes `identityAtStart` sets. A server refuses a start that names an
 * attribute it does not have (and the time-skipping test server even leaves half a workflow behind), so the SDK asks
 * once per client; where it cannot ask (no operator service, no permission) it starts sessions without them, and each
 * session writes what its server has.
 */
export async function namespaceHasIdentityAttributes(client: Client): Promise<boolean> {
  try {
    const { customAttributes } = await client.connection.operatorService.listSearchAttributes({ namespace: client.options.namespace });
    return [rootSessionIdKey, titleKey, statusKey].every((key) => key.name in (customAttributes ?? {}));
  } catch {
    return false;
  }
}
