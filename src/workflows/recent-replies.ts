import { currentUpdateInfo } from '@temporalio/workflow';

/**
 * Replies to the most recent updates, by update id, carried across continue-as-new. Temporal deduplicates an update
 * id within one run only: an activity retried after its workflow continued as new would otherwise apply twice.
 * Call from inside an update handler.
 */
export class RecentReplies<T> {
  private readonly replies: Map<string, T>;

  constructor(
    carried: [string, T][] = [],
    private readonly limit = 500,
  ) {
    this.replies = new Map(carried.slice(-limit));
  }

  /** The reply given earlier to the running update's id, if it was applied before. */
  earlier(): T | undefined {
    const id = currentUpdateInfo()?.id;
    return id === undefined ? undefined : this.replies.get(id);
  }

  /** Keeps the running update's reply, forgetting the oldest beyond the limit, and returns it. */
  keep(reply: T): T {
    const id = currentUpdateInfo()?.id;
    if (id === undefined) return reply;
    this.replies.set(id, reply);
    if (this.replies.size > this.limit) this.replies.delete(this.replies.keys().next().value!);
    return reply;
  }

  carry(): [string, T][] {
    return [...this.replies];
  }
}
