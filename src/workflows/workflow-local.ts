/**
 * State that belongs to one workflow, in a module the worker shares among all the workflows it runs (issue 32: the
 * session's modules are preloaded by shared-modules.ts, so their module scope is evaluated once per worker and a
 * module-level `let` would be one variable for every session of the worker).
 *
 * Kept as a property of the workflow's `globalThis`: the SDK keeps global properties per workflow (its reusable V8
 * context swaps each workflow's own global properties in as it calls into that workflow, and a new workflow starts
 * with the globals the context had before any workflow ran; without the reusable context each workflow has a context
 * of its own). No history event, no command.
 */
type Holder = Record<string, unknown>;

export interface WorkflowLocal<T> {
  get(): T;
  set(value: T): void;
}

/** A value of this workflow, `initial` until it is first set. `name` must be unique among Arbor's workflow-locals. */
export function workflowLocal<T>(name: string, initial: T): WorkflowLocal<T> {
  const key = `__arbor_${name}`;
  const holder = globalThis as unknown as Holder;
  return {
    get: () => (key in holder ? (holder[key] as T) : initial),
    set: (value) => {
      holder[key] = value;
    },
  };
}
