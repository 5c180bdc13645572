/**
 * A value built on first use, then kept. Workflow code uses it for zod schemas: each workflow evaluates the bundle's
 * modules afresh, so a schema built at module load costs every cached session its memory, used or not.
 */
export function lazy<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}
