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
    const headers: Record<string, string> = options.lastEventId ? { 'Last-Event-ID': options.lastEventId } : {};
    const response = await fetch(url, { signal: stop.signal, headers });
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
    if (!stop.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
  return events;
}
