/** How many history reads or workflow starts a fork has in flight at once. */
export const forkConcurrency = 8;

/** Runs what it is given with at most `limit` pending at a time, the others waiting their turn in order. */
export function concurrencyLimit(limit = forkConcurrency): <T>(work: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (work) => {
    if (active < limit) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await work();
    } finally {
      // The slot passes straight to the next in line, so that a newcomer cannot take it in between.
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}

/** `items.map(work)`, at most `limit` at a time; results in the order of `items`. */
export function boundedMap<T, R>(items: readonly T[], work: (item: T) => Promise<R>, limit = forkConcurrency): Promise<R[]> {
  const limited = concurrencyLimit(limit);
  return Promise.all(items.map((item) => limited(() => work(item))));
}
