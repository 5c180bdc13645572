/**
 * Replies to the most recent updates, by update id, carried across continue-as-new. Temporal deduplicates an update
 * id within one run only: an activity retried after its workflow continued as new would otherwise apply twice.
 * Update handlers pass `currentUpdateInfo()?.id`. Pure: no Temporal calls.
 */
export class RecentReplies<T> {
  private readonly replies: Map<string, T>;

  constructor(
    carried: [string, T][] = [],
    private readonly limit = 500,
  ) {
    this.replies = new Map(carried.slice(-limit));
  }

  /** The reply given earlier to this update id, if it was applied before. */
  earlier(updateId: string | undefined): T | undefined {
    return updateId === undefined ? undefined : this.replies.get(updateId);
  }

  /** Keeps the reply to this update id, forgetting the oldest beyond the limit, and returns it. */
  keep(updateId: string | undefined, reply: T): T {
    if (updateId === undefined) return reply;
    this.replies.set(updateId, reply);
    if (this.replies.size > this.limit) this.replies.delete(this.replies.keys().next().value!);
    return reply;
  }

  get size(): number {
    return this.replies.size;
  }

  carry(): [string, T][] {
    return [...this.replies];
  }
}
