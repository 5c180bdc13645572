import { carriedEventCount, eventBufferSize, type EventPage, type EventRange, type SessionEvent, type SessionEventBody } from '../shared/events.js';

export interface CarriedEvents {
  next_seq: number;
  events: SessionEvent[];
}

const maxPage = 500;

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
    const events = start === -1 ? [] : this.events.slice(start, start + limit);
    return { events, last_seq: this.lastSeq, missed: Math.max(0, Math.min(oldest, this.nextSeq) - after - 1) };
  }

  carry(): CarriedEvents {
    return { next_seq: this.nextSeq, events: this.events.slice(-carriedEventCount) };
  }
}

/** Shortens a text for display, saying so. */
export function shorten(text: string, limit: number): { text: string; truncated?: true } {
  if (text.length <= limit) return { text };
  return { text: `${text.slice(0, limit)}…`, truncated: true };
}
