/**
 * The most messages one client has sent to one session that the session has not yet taken in (seen as queued or
 * handled). Temporal fails a workflow task that more than 100 signals arrive during, and each signal costs the
 * session's workflow a few milliseconds; thousands sent at once would keep failing its workflow tasks, make every
 * retry replay a longer history and could stall the session. With this window, a flood is delivered at the pace the
 * session takes it in.
 */
export const maxUnacknowledgedSends = 50;

/**
 * The most bytes of messages (UTF-8) one client has sent to one session that the session has not yet taken in. The
 * signals that arrive during one workflow task are written to history when it completes, and the server force-closes
 * a task that would write several megabytes at once (six messages of 600 KB sent together did). A message larger than
 * this goes out alone, once the session has taken in the ones before it.
 */
export const maxUnacknowledgedBytes = 1_000_000;

/** How long a send waits for the session to take in earlier messages before it goes ahead anyway. */
const acknowledgementWaitMs = 60_000;

interface Window {
  chain: Promise<void>;
  unseen: string[];
  unseenBytes: number;
  pending: number;
}

/** Per session: sends in call order, and the ids sent that the session has not been seen to take in yet. */
export class SendWindows {
  private readonly sessions = new Map<string, Window>();

  /**
   * Sends one message of `bytes` bytes with `signal`, after the earlier sends to the same session, and once the window
   * has room: `isSeen(id)` tells whether the session has taken in the message of that id. A `signal` that resolves
   * with true says the session has taken the message in already (an update did), so it takes no room.
   */
  async send(
    sessionId: string,
    id: string,
    bytes: number,
    signal: () => Promise<boolean | void>,
    isSeen: (id: string) => Promise<boolean>,
  ): Promise<void> {
    let window = this.sessions.get(sessionId);
    if (!window) this.sessions.set(sessionId, (window = { chain: Promise.resolve(), unseen: [], unseenBytes: 0, pending: 0 }));
    const current = window;
    current.pending += 1;
    const turn = current.chain.then(async () => {
      const newest = current.unseen.at(-1);
      const full = current.unseen.length >= maxUnacknowledgedSends || current.unseenBytes + bytes > maxUnacknowledgedBytes;
      if (newest !== undefined && full) {
        // Signals are taken in order: once the newest is seen, all before it are.
        await waitUntil(() => isSeen(newest), acknowledgementWaitMs);
        current.unseen = [];
        current.unseenBytes = 0;
      }
      if ((await signal()) === true) return;
      current.unseen.push(id);
      current.unseenBytes += bytes;
    });
    current.chain = turn.catch(() => undefined);
    try {
      await turn;
    } finally {
      current.pending -= 1;
      if (this.sessions.size > 1_000) for (const [key, idle] of this.sessions) if (idle.pending === 0) this.sessions.delete(key);
    }
  }
}

/** Polls `condition` (a failed check counts as not yet) until it holds or `timeoutMs` passes. */
async function waitUntil(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 20; Date.now() < deadline; delay = Math.min(delay * 2, 500)) {
    if (await condition().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
