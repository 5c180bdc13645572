/**
 * Installs into the cache so that no reader ever sees half an install: each installer builds into a
 * private staging folder which is renamed into place only once complete. A lock file serialises
 * installers of the same thing (two test processes starting at once install once; the second waits
 * and then finds the first one's result). The rename keeps things correct even if the lock is
 * broken (for example a stale lock removed by two waiters at once).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { mkdir, open, readdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** A lock older than this is taken to belong to a dead or hung installer. */
const STALE_LOCK_MS = 45 * 60_000;
const POLL_MS = 250;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function lockIsStale(lockPath: string): Promise<boolean> {
  try {
    const [text, info] = await Promise.all([readFile(lockPath, 'utf8'), stat(lockPath)]);
    const [pidText, host] = text.trim().split(/\s+/);
    const pid = Number(pidText);
    const sameHost = host === undefined || host === hostname();
    if (sameHost && Number.isInteger(pid) && pid > 0 && !isAlive(pid)) return true;
    return Date.now() - info.mtimeMs > STALE_LOCK_MS;
  } catch (err) {
    // Vanished between our open and read: not stale, just retry.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    // Unreadable (e.g. written half by a killed process): judge by age.
    try {
      return Date.now() - (await stat(lockPath)).mtimeMs > STALE_LOCK_MS;
    } catch {
      return false;
    }
  }
}

/** Runs `fn` while holding the lock file `lockPath` (created exclusively; waits while another process holds it). */
export async function withFileLock<T>(lockPath: string, fn: () => Promise<T>, onWait?: () => void): Promise<T> {
  await mkdir(dirname(lockPath), { recursive: true });
  let waited = false;
  for (;;) {
    try {
      const handle = await open(lockPath, 'wx');
      try {
        await handle.writeFile(`${process.pid} ${hostname()}\n`);
      } finally {
        await handle.close();
      }
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (await lockIsStale(lockPath)) {
        // Move it aside first so only one waiter removes it.
        const aside = `${lockPath}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
        await rename(lockPath, aside).then(
          () => unlink(aside),
          () => undefined,
        );
        continue;
      }
      if (!waited) {
        waited = true;
        onWait?.();
      }
      await sleep(POLL_MS);
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lockPath, { force: true });
  }
}

/** Removes staging leftovers of `target` from interrupted installs. Call only while holding the lock for `target`. */
async function removeLeftovers(target: string): Promise<void> {
  const prefix = `${basename(target)}.partial-`;
  const parent = dirname(target);
  let names: string[];
  try {
    names = await readdir(parent);
  } catch {
    return;
  }
  await Promise.all(names.filter((n) => n.startsWith(prefix)).map((n) => rm(join(parent, n), { recursive: true, force: true })));
}

/**
 * Builds a folder with `build(stagingDir)` and renames it to `targetDir` once `isComplete(stagingDir)` holds.
 * An existing `targetDir` that is not complete is replaced. Call while holding the lock for `targetDir`.
 */
export async function installDirAtomically(
  targetDir: string,
  build: (stagingDir: string) => Promise<void>,
  isComplete: (dir: string) => Promise<boolean>,
): Promise<void> {
  await mkdir(dirname(targetDir), { recursive: true });
  await removeLeftovers(targetDir);
  const staging = `${targetDir}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
  await mkdir(staging, { recursive: true });
  try {
    await build(staging);
    if (!(await isComplete(staging))) throw new Error(`the install in ${staging} is incomplete`);
    if (await isComplete(targetDir)) return; // someone else finished first
    await rm(targetDir, { recursive: true, force: true });
    try {
      await rename(staging, targetDir);
    } catch (err) {
      // Lost a race with an installer that ignored the lock: theirs is as good as ours.
      if (!(await isComplete(targetDir))) throw err;
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Puts one file at `target` atomically: copy-free rename from a sibling staging name written by `build`. */
export async function installFileAtomically(target: string, build: (stagingDir: string) => Promise<string>): Promise<void> {
  await mkdir(dirname(target), { recursive: true });
  await removeLeftovers(target);
  const staging = `${target}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
  await mkdir(staging, { recursive: true });
  try {
    const built = await build(staging);
    await rename(built, target);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
