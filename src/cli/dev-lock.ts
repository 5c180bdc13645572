import { mkdirSync, openSync, readFileSync, rmSync, writeFileSync, closeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';

/** The embedded server's state file, relative to the folder a command runs in. */
export const embeddedDatabase = '.arbor/temporal.db';

/** What the lock file next to an embedded server's state file says: who runs the server, and where to reach it. */
const lockSchema = z.object({
  pid: z.number().int().positive(),
  address: z.string().min(1),
  namespace: z.string().min(1),
  ui_url: z.string().nullable(),
  task_queue: z.string().min(1),
});
export type ServerLock = z.infer<typeof lockSchema>;

export function lockPathOf(dbFile: string): string {
  return `${resolve(dbFile)}.lock`;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, but another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock of a live process on this state file, or undefined (none, unreadable, or its process has died). */
export function liveLock(dbFile: string): ServerLock | undefined {
  let text: string;
  try {
    text = readFileSync(lockPathOf(dbFile), 'utf8');
  } catch {
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const lock = lockSchema.safeParse(parsed);
  return lock.success && isAlive(lock.data.pid) ? lock.data : undefined;
}

/** Whether this process holds the lock; `update` rewrites it (the address once the server has started), `release` removes it. */
export interface HeldLock {
  update(lock: Omit<ServerLock, 'pid'>): void;
  release(): void;
}

/**
 * Takes the lock of a state file for this process, taking over a stale one (its process has died). Returns the live
 * lock of another process instead when there is one: that process runs a server on this state file.
 */
export function takeLock(dbFile: string, lock: Omit<ServerLock, 'pid'>): { held: HeldLock } | { running: ServerLock } {
  const path = lockPathOf(dbFile);
  mkdirSync(dirname(path), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeFileSync(fd, JSON.stringify({ ...lock, pid: process.pid }));
      closeSync(fd);
      return {
        held: {
          update: (next) => writeFileSync(path, JSON.stringify({ ...next, pid: process.pid })),
          release: () => {
            if (liveLock(dbFile)?.pid === process.pid) rmSync(path, { force: true });
          },
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const running = liveLock(dbFile);
      if (running && running.pid !== process.pid) return { running };
      rmSync(path, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`Could not take the lock ${path}`);
}

/** How to reach a server another process runs on this state file. */
export function describeRunningServer(dbFile: string, running: ServerLock): string {
  return (
    `arbor dev (pid ${running.pid}) already runs a Temporal server on ${dbFile}, at ${running.address}` +
    `${running.ui_url ? ` with the Web UI at ${running.ui_url}` : ''}. Use that one: in this folder, run, chat and the ` +
    `other commands find it by themselves; from elsewhere, TEMPORAL_ADDRESS=${running.address} arbor run "…". ` +
    'Stop it with Ctrl-C in its terminal, or give this one another --db.'
  );
}
