import type { SearchAttributePair } from '@temporalio/common';
import { isGrpcServiceError, ServiceError } from '@temporalio/client';
import { rootSessionIdKey, statusKey, titleKey } from '../shared/search-attributes.js';

/**
 * The search attributes a root session starts with: its tree (itself), its title and `idle`, the status its first
 * workflow task would write. A session started with them writes none of them (`startedWithIdentity()`), so its first
 * workflow task makes no search-attribute write of its own, and it is in visibility, listed by `arbor list`, from its
 * first moment, as a sub-agent is.
 */
export function identityAtStart(sessionId: string, title: string): SearchAttributePair[] {
  return [
    { key: rootSessionIdKey, value: sessionId },
    { key: titleKey, value: title },
    { key: statusKey, value: 'idle' },
  ];
}

const grpcInvalidArgument = 3;

/** Whether a start was refused because the server has no such search attribute (it was never registered there). */
export function isUnknownSearchAttribute(error: unknown): boolean {
  // The client wraps the server's refusal ("Failed to start Workflow"), with the gRPC error as its cause.
  const refusal = error instanceof ServiceError ? error.cause : error;
  return isGrpcServiceError(refusal) && refusal.code === grpcInvalidArgument && /search attribute/i.test(refusal.message);
}
