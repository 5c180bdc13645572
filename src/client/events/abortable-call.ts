import type { Client } from '@temporalio/client';

/**
 * Runs a client call that `signal` cancels. Each call gets its own short-lived signal, so long readers do not pile
 * listeners onto the caller's signal (the gRPC layer adds one per call).
 */
export async function abortableCall<T>(client: Client, signal: AbortSignal | undefined, operation: () => Promise<T>): Promise<T> {
  if (!signal) return operation();
  // A call begun under a signal aborted already would wait for an abort event that has fired (until its deadline).
  if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
  const local = new AbortController();
  const forward = () => local.abort();
  signal.addEventListener('abort', forward, { once: true });
  try {
    return await client.withAbortSignal(local.signal, operation);
  } finally {
    signal.removeEventListener('abort', forward);
  }
}
