import type { SessionHandle } from '../session-handle.js';
import type { Output } from './output.js';
import { renderProgress } from './render.js';

/**
 * Waits for the session's turn to end, showing tool calls as they happen, then prints the answer (or, with --json,
 * `{session_id, status, answer, error, snapshot}`). A turn that ended in an error sets a non-zero exit code.
 */
export async function waitForAnswer(
  session: SessionHandle,
  output: Output,
  options: { messageId?: string; fromEntry: number; timeoutSeconds?: number | undefined },
): Promise<void> {
  let answer: string | null = null;
  const snapshot = await session.waitUntilIdle({
    ...(options.messageId ? { messageId: options.messageId } : {}),
    ...(options.timeoutSeconds ? { timeoutMs: options.timeoutSeconds * 1000 } : {}),
    fromEntry: options.fromEntry,
    onEntries: (entries) => {
      for (const entry of entries) {
        const line = renderProgress(entry);
        if (line) output.progress(line);
        if (entry.role === 'assistant' && entry.content && !entry.tool_calls?.length) answer = entry.content;
      }
    },
  });
  const error = snapshot.last_error;
  output.result(
    { session_id: session.id, status: snapshot.status, answer, error, snapshot },
    error ? `Error: ${error}` : (answer ?? '(no answer)'),
  );
  if (error) process.exitCode = 1;
}
