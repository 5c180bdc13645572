/** A session of a tree being read, with its place in the tree (a reader may correct the title once it knows it). */
export interface TreeMember {
  id: string;
  title: string;
  depth: number;
}

/** Starts reading a member of the tree from a position (once per session: a session already read is left alone). */
export type FollowMember<From> = (member: TreeMember, from: From) => void;

/**
 * Reads one member from `from`: yields what it finds and calls `follow` for each session below it as it learns of
 * one. Ends when the member has nothing more to give; stops when `signal` aborts.
 */
export type MemberReader<Out, From> = (
  member: TreeMember,
  from: From,
  follow: FollowMember<From>,
  signal: AbortSignal,
) => AsyncIterable<Out>;

export interface TreeJoinOptions {
  signal?: AbortSignal | undefined;
  /** Called when reading one member fails (the rest of the tree goes on). */
  onError?: ((sessionId: string, error: unknown) => void) | undefined;
}

/**
 * What the readers of a growing set of sessions yield, joined as it arrives: one reader per session, the root's
 * first, each one more as a reader finds a session below its own. Ends when every reader has ended, or when the
 * signal aborts or the caller stops iterating; in every case the readers' calls have ended when it returns.
 */
export async function* joinTreeReaders<Out, From>(
  root: TreeMember,
  from: From,
  read: MemberReader<Out, From>,
  options: TreeJoinOptions = {},
): AsyncGenerator<Out> {
  // Readers stop when the caller aborts or stops iterating.
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) stop.abort();
  const signal = stop.signal;
  // Each member's reader gets a signal of its own, all aborted by one listener: a hundred readers' calls would
  // otherwise hang a hundred listeners on one signal (Node warns past ten).
  const members = new Set<AbortController>();
  signal.addEventListener('abort', () => members.forEach((member) => member.abort()), { once: true });
  const queue: Out[] = [];
  const running = new Set<Promise<void>>();
  const known = new Set<string>();
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };

  const follow: FollowMember<From> = (member, start) => {
    if (known.has(member.id) || signal.aborted) return;
    known.add(member.id);
    const own = new AbortController();
    members.add(own);
    const reader = (async () => {
      try {
        for await (const out of read(member, start, follow, own.signal)) {
          queue.push(out);
          notify();
        }
      } catch (error) {
        if (!signal.aborted) options.onError?.(member.id, error);
      }
    })();
    running.add(reader);
    void reader.finally(() => {
      members.delete(own);
      running.delete(reader);
      notify();
    });
  };

  follow(root, from);
  try {
    for (;;) {
      while (queue.length > 0) yield queue.shift()!;
      if (running.size === 0 || signal.aborted) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          signal.removeEventListener('abort', done);
          resolve();
        };
        wake = done;
        signal.addEventListener('abort', done);
        if (queue.length > 0 || running.size === 0 || signal.aborted) done();
      });
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    stop.abort();
    // Let every reader's calls end before the caller may close the connection under them.
    await Promise.allSettled([...running]);
  }
}
