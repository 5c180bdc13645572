import type { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** One `UpsertWorkflowSearchAttributes` event: the workflow task that wrote it, and the attributes it wrote, decoded. */
export interface SearchAttributeWrite {
  task: string;
  attributes: Record<string, unknown>;
}

/** Every search-attribute write of a history, Arbor's own and the `TemporalChangeVersion` of Temporal's patches alike. */
export function searchAttributeWrites(events: HistoryEvent[]): SearchAttributeWrite[] {
  return events.flatMap((event) => {
    const upsert = event.upsertWorkflowSearchAttributesEventAttributes;
    if (!upsert) return [];
    const fields = upsert.searchAttributes?.indexedFields ?? {};
    const attributes = Object.fromEntries(
      Object.entries(fields).map(([name, payload]) => [name, JSON.parse(Buffer.from(payload.data ?? new Uint8Array()).toString('utf8'))]),
    );
    return [{ task: String(upsert.workflowTaskCompletedEventId), attributes }];
  });
}

/** The workflow tasks that made more than one search-attribute write, each with what it wrote. */
export function tasksWithSeveralWrites(events: HistoryEvent[]): Record<string, Record<string, unknown>[]> {
  const byTask = new Map<string, Record<string, unknown>[]>();
  for (const write of searchAttributeWrites(events)) byTask.set(write.task, [...(byTask.get(write.task) ?? []), write.attributes]);
  return Object.fromEntries([...byTask].filter(([, writes]) => writes.length > 1));
}

/** The `ArborStatus` values written, in order. */
export function statusWrites(events: HistoryEvent[]): string[] {
  return searchAttributeWrites(events).flatMap((write) =>
    typeof write.attributes['ArborStatus'] === 'string' ? [write.attributes['ArborStatus']] : [],
  );
}
