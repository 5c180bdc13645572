import type { Client } from '@temporalio/client';
import { settled } from '../../src/testing/safe-looks.js';

/**
 * Waits until a workflow has stopped moving, asking no query (the testing kit's `settled`, which also sees a
 * workflow task in flight on the Java time-skipping test server, where `describe()` never reports one). On that
 * server a query that meets a workflow task in flight can leave time skipping locked for good, so every later
 * `env.sleep` waits in real time. Call it before such a sleep instead of polling a snapshot.
 */
export async function waitUntilSettled(client: Client, workflowId: string, timeoutMs = 30_000): Promise<void> {
  // Looks a second apart, as a continue-as-new or a timer's firing may take that long to show on a loaded machine.
  const look = await settled(client, workflowId, Date.now() + timeoutMs, 1_000);
  if (look === undefined) throw new Error(`workflow ${workflowId} did not settle within ${timeoutMs} ms`);
}
