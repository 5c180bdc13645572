import { uuid4 } from '@temporalio/workflow';

/**
 * Idempotency keys of side-effect tools were once drawn from the workflow's random source; they are step keys now.
 * One id is still drawn and dropped where they were, so the ids drawn after it (transcript entries, sub-agent ids)
 * stay what they are in histories recorded before step keys.
 */
export function skipRetiredRandomId(): void {
  void uuid4();
}
