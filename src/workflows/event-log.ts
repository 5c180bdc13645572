import { utf8Length } from '../shared/utf8.js';
import {
  carriedEventCount,
  eventBufferSize,
  type EventPage,
  type EventRange,
  type SessionEvent,
  type SessionEventBody,
} from '../shared/events.js';

export interface CarriedEvents {
  next_seq: number;
  events: SessionEvent[];
}

const maxPage = 500;
/**
 * Characters of JSON one page holds (at least one event): 500 events of up to 4,000 characters could pass the 4 MB a
 * gRPC message carries in multi-byte text. Readers go on from the last event they got until `last_seq`.
 */
const maxPageChars = 500_000;

/** The most bytes of JSON of events a continue-as-new carries (100 message events can take 1.2 MB in Chinese). */
export const carriedEventBytes = 200_000;

/** A session's numbered event stream: a bounded ring of the newest events; older ones are dropped, their numbers never reused. */
export class EventLog {
  private events: SessionEvent[];
  private nextSeq: number;

  constructor(
    private readonly sessionId: string,
    private readonly now: () => Date,
    carried?: CarriedEvents,
    private readonly capacity = eventBufferSize,
  ) {
    this.events = carried?.events ?? [];
    this.nextSeq = carried?.next_seq ?? 1;
  }

  emit(body: SessionEventBody): SessionEvent {
    const event = { ...body, seq: this.nextSeq++, at: this.now().toISOString(), session_id: this.sessionId } as SessionEvent;
    this.events.push(event);
    if (this.events.length > this.capacity) this.events.splice(0, this.events.length - this.capacity);
    return event;
  }

  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  page(range: EventRange = {}): EventPage {
    const after = Math.max(0, Math.floor(range.after ?? 0));
    const limit = Math.min(maxPage, Math.max(1, Math.floor(range.limit ?? maxPage)));
    const oldest = this.events[0]?.seq ?? this.nextSeq;
    const start = this.events.findIndex((event) => event.seq > after);
    const events = start === -1 ? [] : boundedBySize(this.events.slice(start, start + limit));
    return { events, last_seq: this.lastSeq, missed: Math.max(0, Math.min(oldest, this.nextSeq) - after - 1) };
  }

  /** The newest events for the next run: at most `carriedEventCount`, and at most `carriedEventBytes` of JSON. */
  carry(): CarriedEvents {
    const events = this.events.slice(-carriedEventCount);
    let bytes = 0;
    for (let index = events.length - 1; index >= 0; index--) {
      bytes += utf8Length(JSON.stringify(events[index]));
      if (bytes > carriedEventBytes) return { next_seq: this.nextSeq, events: events.slice(index + 1) };
    }
    return { next_seq: this.nextSeq, events };
  }
}

function boundedBySize(events: SessionEvent[]): SessionEvent[] {
  let chars = 0;
  for (let index = 0; index < events.length; index++) {
    chars += JSON.stringify(events[index]).length;
    if (chars > maxPageChars && index > 0) return events.slice(0, index);
  }
  return events;
}

/** Shortens a text for display, saying so. */
export function shorten(text: string, limit: number): { text: string; truncated?: true } {
  if (text.length <= limit) return { text };
  return { text: `${text.slice(0, limit)}…`, truncated: true };
}
