import { emitKeypressEvents } from 'node:readline';

/**
 * Calls `onEscape` when the user presses Esc on the terminal, until the returned function is called. The terminal is
 * in raw mode meanwhile, so Ctrl-C is passed on as SIGINT, as the terminal would have sent it. Off a terminal (a
 * pipe), nothing is listened to.
 */
export function listenForEscape(onEscape: () => void): () => void {
  const input = process.stdin;
  if (!input.isTTY) return () => {};
  emitKeypressEvents(input);
  const wasRaw = input.isRaw;
  input.setRawMode(true);
  input.resume();
  const onKey = (_text: string | undefined, key: { name?: string; ctrl?: boolean } | undefined) => {
    if (key?.name === 'escape') onEscape();
    else if (key?.ctrl && key.name === 'c') process.kill(process.pid, 'SIGINT');
  };
  input.on('keypress', onKey);
  return () => {
    input.off('keypress', onKey);
    input.setRawMode(wasRaw);
    input.pause();
  };
}
