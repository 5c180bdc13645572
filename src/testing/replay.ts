import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { Worker } from '@temporalio/worker';
import { workflowBundlePath } from './workflow-bundle.js';
import { dataConverterOption } from '../codec/data-converter.js';
import { parseEncryptionKeys } from '../codec/encryption-keys.js';

export interface ReplayOptions {
  /** A workflow bundle built beforehand (default: the package's prebuilt one, else Arbor's workflow code bundled). */
  workflowBundlePath?: string;
  /** The keys of encrypted histories, in the format of ARBOR_ENCRYPTION_KEYS (default: none; plain histories need none). */
  encryptionKeys?: string;
}

export interface ReplayedHistory {
  /** The file, relative to the folder. */
  file: string;
  /** Why it did not replay (a nondeterminism, naming the command that differed), if it did not. */
  error?: Error;
}

/** Histories that did not replay; each entry of `failures` names its file and what went wrong. */
export class ReplayFailedError extends Error {
  override name = 'ReplayFailedError';

  constructor(readonly failures: ReplayedHistory[]) {
    super(
      `${failures.length} recorded histor${failures.length === 1 ? 'y does' : 'ies do'} not replay with today's workflow code:\n` +
        failures.map((failure) => `  ${failure.file}: ${failure.error?.message}`).join('\n'),
    );
  }
}

/**
 * Replays every `*.json` history under `folder` (recorded by `recordHistory`, or saved with
 * `temporal workflow show --output json`) against today's workflow code, and throws a ReplayFailedError naming each
 * history that does not replay. Returns the files replayed.
 */
export async function replayHistories(folder: string, options: ReplayOptions = {}): Promise<ReplayedHistory[]> {
  const files = await historyFiles(folder);
  if (files.length === 0) throw new Error(`No recorded histories (*.json) under ${folder}.`);
  const histories = [];
  for (const file of files) {
    const text = await readFile(file, 'utf8');
    let history: unknown;
    try {
      history = JSON.parse(text);
    } catch (error) {
      throw new Error(`${file} is not a JSON history: ${(error as Error).message}`, { cause: error });
    }
    histories.push({ workflowId: relative(folder, file), history });
  }
  const codec = dataConverterOption(parseEncryptionKeys(options.encryptionKeys, 'encryptionKeys'));
  const bundle = await workflowBundlePath(options.workflowBundlePath);
  const replayed: ReplayedHistory[] = [];
  for await (const result of Worker.runReplayHistories({ workflowBundle: { codePath: bundle }, ...codec }, histories)) {
    replayed.push({ file: result.workflowId, ...(result.error ? { error: result.error as Error } : {}) });
  }
  const failures = replayed.filter((result) => result.error);
  if (failures.length > 0) throw new ReplayFailedError(failures);
  return replayed;
}

async function historyFiles(folder: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) files.push(...(await historyFiles(path)));
    else if (entry.isFile() && entry.name.endsWith('.json')) files.push(path);
  }
  return files.sort();
}
