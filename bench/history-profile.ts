/**
 * What the server stores for one workflow's life (issue 32's profile of a sub-agent): its events by type, with their
 * encoded sizes, and, in its parent, the size and search attributes of the event that started it.
 */
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { runHistories } from './harness.js';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

const eventBytes = (event: HistoryEvent) => proto.temporal.api.history.v1.HistoryEvent.encode(event).finish().length;

const typeName = (event: HistoryEvent) =>
  (proto.temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? String(event.eventType)).replace(/^EVENT_TYPE_/, '');

export interface HistoryProfile {
  events: number;
  bytes: number;
  by_type: Record<string, { count: number; bytes: number }>;
}

/** Every run's events of a workflow, counted and sized by type. */
export async function historyProfile(client: Client, workflowId: string, firstRunId?: string): Promise<HistoryProfile> {
  const runId = firstRunId ?? (await client.workflow.getHandle(workflowId).describe()).runId;
  const profile: HistoryProfile = { events: 0, bytes: 0, by_type: {} };
  for await (const events of runHistories(client, workflowId, runId)) {
    for (const event of events) {
      const bytes = eventBytes(event);
      const entry = (profile.by_type[typeName(event)] ??= { count: 0, bytes: 0 });
      entry.count += 1;
      entry.bytes += bytes;
      profile.events += 1;
      profile.bytes += bytes;
    }
  }
  return profile;
}

export interface ChildStartProfile {
  /** The encoded StartChildWorkflowExecutionInitiated event, in bytes, at p50 over the parent's children. */
  initiated_event_bytes: number;
  /** Of which the input payloads. */
  input_bytes: number;
  /** Of which the search attributes (their encoded map). */
  search_attribute_bytes: number;
  search_attributes: string[];
  memo_bytes: number;
  children: number;
}

/** The parent's StartChildWorkflowExecutionInitiated events: how large, and what they carry. */
export async function childStartProfile(client: Client, parentId: string, firstRunId: string): Promise<ChildStartProfile> {
  const rows: { total: number; input: number; attributes: number; memo: number; names: string[] }[] = [];
  for await (const events of runHistories(client, parentId, firstRunId)) {
    for (const event of events) {
      const start = event.startChildWorkflowExecutionInitiatedEventAttributes;
      if (!start) continue;
      rows.push({
        total: eventBytes(event),
        input: start.input ? proto.temporal.api.common.v1.Payloads.encode(start.input).finish().length : 0,
        attributes: start.searchAttributes
          ? proto.temporal.api.common.v1.SearchAttributes.encode(start.searchAttributes).finish().length
          : 0,
        memo: start.memo ? proto.temporal.api.common.v1.Memo.encode(start.memo).finish().length : 0,
        names: Object.keys(start.searchAttributes?.indexedFields ?? {}).sort(),
      });
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  return {
    initiated_event_bytes: median(rows.map((row) => row.total)),
    input_bytes: median(rows.map((row) => row.input)),
    search_attribute_bytes: median(rows.map((row) => row.attributes)),
    search_attributes: rows[0]?.names ?? [],
    memo_bytes: median(rows.map((row) => row.memo)),
    children: rows.length,
  };
}
