/**
 * A copy of `value` in which every occurrence of an old session id, in any string, is the new one: a forked tree's
 * members refer to each other by the fork's ids, in their records, events, task board and in the conversation the
 * model reads (a `subAgent` result names the sub-agent's id, which the model may message later).
 */
export function rewriteIds<T>(value: T, ids: ReadonlyMap<string, string>): T {
  if (ids.size === 0) return value;
  const rewrite = (item: unknown): unknown => {
    if (typeof item === 'string') {
      let text = item;
      for (const [from, to] of ids) if (text.includes(from)) text = text.split(from).join(to);
      return text;
    }
    if (Array.isArray(item)) return item.map(rewrite);
    if (item !== null && typeof item === 'object')
      return Object.fromEntries(Object.entries(item).map(([key, entry]) => [rewrite(key) as string, rewrite(entry)]));
    return item;
  };
  return rewrite(value) as T;
}
