export interface StreamedEvent {
  id: string;
  data: string;
}

/**
 * Reads a server-sent event stream as a browser's EventSource would (resuming after `lastEventId` when given) until
 * `enough` says so, the stream ends, or `timeoutMs` passes (no bound when absent). Events without an id or data are
 * left out.
 */
export async function readEventStream(
  url: string,
  enough: (events: readonly StreamedEvent[]) => boolean,
  options: { lastEventId?: string | undefined; timeoutMs?: number } = {},
): Promise<StreamedEvent[]> {
  const stop = new AbortController();
  const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => stop.abort(), options.timeoutMs);
  const events: StreamedEvent[] = [];
  try {
    await readInto(url, events, enough, stop.signal, options.lastEventId);
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
  return events;
}

/** A server-sent event stream held open as a browser tab holds one: `events` grows as they arrive, until `close()`. */
export function openEventStream(url: string): { events: StreamedEvent[]; close: () => Promise<void> } {
  const stop = new AbortController();
  const events: StreamedEvent[] = [];
  const reading = readInto(url, events, () => false, stop.signal, undefined);
  return {
    events,
    close: async () => {
      stop.abort();
      await reading;
    },
  };
}

async function readInto(
  url: string,
  events: StreamedEvent[],
  enough: (events: readonly StreamedEvent[]) => boolean,
  signal: AbortSignal,
  lastEventId: string | undefined,
): Promise<void> {
  try {
    const headers: Record<string, string> = lastEventId ? { 'Last-Event-ID': lastEventId } : {};
    const response = await fetch(url, { signal, headers });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    while (!enough(events)) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      const blocks = buffer.split('\n\n');
      buffer = blocks.pop()!;
      for (const block of blocks) {
        const id = /^id: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (id && data) events.push({ id, data });
      }
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  }
}
