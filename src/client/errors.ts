/** A bad argument or an impossible request from a client or CLI user; its message says what to fix. */
export class ArborClientError extends Error {
  override readonly name = 'ArborClientError';
}
