import { condition, setHandler } from '@temporalio/workflow';
import { transcriptQuery } from '../../../src/shared/messages.js';
import type { TranscriptEntry } from '../../../src/shared/session.js';

/** A session as workers before the `transcriptPage` query served it: the transcript by the run's positions only. */
export async function prePageSession(entries: TranscriptEntry[]): Promise<void> {
  setHandler(transcriptQuery, (range) => {
    const offset = Math.max(0, range?.offset ?? 0);
    return entries.slice(offset, range?.limit === undefined ? undefined : offset + range.limit);
  });
  await condition(() => false);
}
