/**
 * What the work behind a tool answers (an activity, a workflow update, a session's goals, loops and cron jobs): a result
 * for the model, or a refusal the model can read and correct.
 */
export type ToolReply<T> = { ok: true; result: T } | { ok: false; error: string };
