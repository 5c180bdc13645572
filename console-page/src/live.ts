import type { SessionEvent } from '../../src/shared/events.js';
import type { StreamItem } from '../../src/shared/stream.js';

export interface LiveEvent {
  event: SessionEvent;
  session: { id: string; title: string; depth: number };
}

export interface LiveStreamItem {
  item: StreamItem;
  session: { id: string; title: string; depth: number };
}

/**
 * What the console server sends on a tree's stream: events, stream items (answer text as it is written), a member
 * that could not be read, and `reset` when the server no longer keeps what came after the tab's position.
 */
export type FeedItem =
  | ({ kind: 'event' } & LiveEvent)
  | ({ kind: 'stream' } & LiveStreamItem)
  | { kind: 'error'; session_id: string; message: string }
  | { kind: 'reset' };

export interface TreeWatch {
  close: () => void;
}

/**
 * Follows a tree's events over server-sent events. The browser resumes a dropped connection itself with the last
 * event id, and the server sends what came after it; an event seen already (after a server restart, which replays
 * everything) is dropped by its session and seq.
 */
export function watchTree(
  rootId: string,
  handlers: {
    onEvent: (event: LiveEvent) => void;
    onStream: (item: LiveStreamItem) => void;
    /** Items were lost for good (the server's memory cap): read the state again. */
    onReset: () => void;
    onError: (sessionId: string, message: string) => void;
    onConnection: (open: boolean) => void;
  },
): TreeWatch {
  const seen = new Set<string>();
  const seenStream = new Set<string>();
  const source = new EventSource(`/api/trees/${encodeURIComponent(rootId)}/events`, { withCredentials: true });
  source.onopen = () => handlers.onConnection(true);
  source.onerror = () => handlers.onConnection(false);
  source.onmessage = (message: MessageEvent<string>) => {
    const item = JSON.parse(message.data) as FeedItem;
    if (item.kind === 'error') return handlers.onError(item.session_id, item.message);
    if (item.kind === 'reset') return handlers.onReset();
    if (item.kind === 'stream') {
      const key = `${item.session.id}:${item.item.pos}`;
      if (seenStream.has(key)) return;
      seenStream.add(key);
      return handlers.onStream(item);
    }
    const key = `${item.session.id}:${item.event.seq}`;
    if (seen.has(key)) return;
    seen.add(key);
    handlers.onEvent(item);
  };
  return { close: () => source.close() };
}

/** One line about an event, as text. */
export function describeEvent(event: SessionEvent): string {
  const body = event as unknown as Record<string, unknown>;
  switch (event.type) {
    case 'message':
      return `${String(body.role)}: ${String(body.content)}`;
    case 'tool_call':
      return `calls ${String(body.name)}`;
    default: {
      const rest = Object.entries(body).filter(([key]) => !['type', 'seq', 'at', 'session_id'].includes(key));
      return rest.map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`).join(' ');
    }
  }
}
