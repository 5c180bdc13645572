import { Socket } from 'node:net';
import { UsageError } from './usage-error.js';

/** Why a TCP connection to `address` failed at once (refused, no such host), or null when it connects or only times out. */
export function immediateConnectFailure(address: string, timeoutMs = 3000): Promise<string | null> {
  const match = /^\[?([^\]]*?)\]?:(\d+)$/.exec(address.trim());
  if (!match) return Promise.resolve(`"${address}" is not a host:port address`);
  const host = match[1] || '127.0.0.1';
  const port = Number(match[2]);
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (reason: string | null) => {
      socket.destroy();
      resolve(reason);
    };
    // A dropped packet is not an answer: the client's own connection deadline decides then.
    socket.setTimeout(timeoutMs, () => done(null));
    socket.once('connect', () => done(null));
    socket.once('error', (error: NodeJS.ErrnoException) => done(describeSocketError(error)));
    socket.connect(port, host);
  });
}

function describeSocketError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'no such host';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'no route to the host';
    default:
      return error.message;
  }
}

/** The one wording every command uses for a Temporal server it cannot reach. */
export function unreachableServer(address: string, reason: string): UsageError {
  return new UsageError(
    `Cannot reach the Temporal server at ${address} (${reason}). Start one with \`arbor dev\`, or point --address or TEMPORAL_ADDRESS at yours.`,
  );
}

/** Throws the unreachable-server error at once when nothing listens at `address`. */
export async function checkServerAnswers(address: string): Promise<void> {
  const reason = await immediateConnectFailure(address);
  if (reason) throw unreachableServer(address, reason);
}
