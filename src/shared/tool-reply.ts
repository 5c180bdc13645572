/** What an activity behind a tool answers: a result for the model, or a refusal the model can read and correct. */
export type ToolReply<T> = { ok: true; result: T } | { ok: false; error: string };
