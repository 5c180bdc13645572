import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../../node_modules/.bin/', import.meta.url));

/** The reference MCP servers from npm, as a worker's configuration names them. */
export const everythingBin = `${bin}mcp-server-everything`;
export const filesystemBin = `${bin}mcp-server-filesystem`;

/** Whether a process still exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** `mcp-server-everything streamableHttp` on a free loopback port; resolves once it says it listens. */
export async function startEverythingOverHttp(
  port?: number,
): Promise<{ url: string; port: number; process: ChildProcess; stop(): Promise<void> }> {
  port ??= await freePort();
  const child = spawn(everythingBin, ['streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`mcp-server-everything did not listen within 20 s: ${seen}`)), 20_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('listening on port')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`mcp-server-everything exited (${code}): ${seen}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    process: child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
