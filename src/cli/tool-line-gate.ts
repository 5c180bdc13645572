/** Where a model call wrote: its turn and its round within the turn. */
export interface RoundOf {
  turn: number;
  round: number;
}

const earlier = (a: RoundOf, b: RoundOf) => a.turn < b.turn || (a.turn === b.turn && a.round < b.round);

/** How long text waits for the lines of the tool calls before it, at most: a reader that lags still loses nothing. */
export const maxToolLineWaitMs = 3_000;

/**
 * Keeps a session's streamed text behind the lines of the tool calls its model made in earlier rounds. The stream
 * reader learns of a call as the model starts it (`tool_call_started`, read from the history at once); the event
 * reader learns of its call and its result a query later. Without the gate, the next round's text could begin on the
 * terminal before the previous round's `→ tool(…)` and `✓ tool: …` lines, which would then print inside it.
 * What a session writes is passed through `pass`: shown at once, or held (in order) until every earlier round's call
 * has had its result printed (`resultShown`), or at most `maxWaitMs`.
 */
export class ToolLineGate {
  /** Calls whose result line has not been printed yet, by session: call id to the round that started it. */
  private readonly awaited = new Map<string, Map<string, RoundOf>>();
  /** Results printed before the stream told of their call (the event reader was first), by session. */
  private readonly printedFirst = new Map<string, Set<string>>();
  /** Held output, by session, each with the round it belongs to (undefined: not text, shown in turn). */
  private readonly held = new Map<string, { round: RoundOf | undefined; show: () => void }[]>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(private readonly maxWaitMs = maxToolLineWaitMs) {}

  started(sessionId: string, toolCallId: string, round: RoundOf): void {
    if (this.printedFirst.get(sessionId)?.delete(toolCallId)) return;
    this.awaitedOf(sessionId).set(toolCallId, round);
  }

  resultShown(sessionId: string, toolCallId: string): void {
    if (this.awaited.get(sessionId)?.delete(toolCallId)) this.releaseReady(sessionId);
    else (this.printedFirst.get(sessionId) ?? this.printedFirst.set(sessionId, new Set()).get(sessionId)!).add(toolCallId);
  }

  /** A round's calls will have no results (its model call was tried again, or its turn interrupted). */
  forget(sessionId: string, which: (round: RoundOf) => boolean): void {
    const awaited = this.awaited.get(sessionId);
    for (const [id, round] of awaited ?? []) if (which(round)) awaited!.delete(id);
    this.releaseReady(sessionId);
  }

  /** Shows output of a session now, or after what it must follow; `round` is the round of text (else undefined). */
  pass(sessionId: string, round: RoundOf | undefined, show: () => void): void {
    const queue = this.held.get(sessionId);
    if (queue) {
      queue.push({ round, show });
      return;
    }
    if (!this.mustWait(sessionId, round)) return show();
    this.held.set(sessionId, [{ round, show }]);
    this.timers.set(
      sessionId,
      setTimeout(() => this.flush(sessionId), this.maxWaitMs),
    );
  }

  /** Shows everything held, in order (the readers are done). */
  flushAll(): void {
    for (const sessionId of [...this.held.keys()]) this.flush(sessionId);
  }

  private mustWait(sessionId: string, round: RoundOf | undefined): boolean {
    if (!round) return false;
    return [...(this.awaited.get(sessionId)?.values() ?? [])].some((started) => earlier(started, round));
  }

  private releaseReady(sessionId: string): void {
    const queue = this.held.get(sessionId);
    if (!queue) return;
    while (queue.length > 0 && !this.mustWait(sessionId, queue[0]!.round)) queue.shift()!.show();
    if (queue.length === 0) this.stopHolding(sessionId);
  }

  private flush(sessionId: string): void {
    const queue = this.held.get(sessionId) ?? [];
    this.stopHolding(sessionId);
    // What it waited for is not coming in time: it is no longer waited for by later text either.
    this.awaited.delete(sessionId);
    for (const { show } of queue) show();
  }

  private stopHolding(sessionId: string): void {
    clearTimeout(this.timers.get(sessionId));
    this.timers.delete(sessionId);
    this.held.delete(sessionId);
  }

  private awaitedOf(sessionId: string): Map<string, RoundOf> {
    return this.awaited.get(sessionId) ?? this.awaited.set(sessionId, new Map()).get(sessionId)!;
  }
}
