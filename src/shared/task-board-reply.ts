/** The board's answer to one operation: the tool's JSON result, or a refusal the model sees as a tool error. */
export type BoardReply = { ok: true; result: unknown } | { ok: false; error: string };
