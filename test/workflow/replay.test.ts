import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { workflowBundle } from '../support/time-skipping.js';

const historiesDir = fileURLToPath(new URL('../histories/', import.meta.url));

describe('committed histories', () => {
  it('replay with today’s workflow code without nondeterminism', async () => {
    const files = (await readdir(historiesDir)).filter((file) => file.endsWith('.json'));
    expect(files.length).toBeGreaterThanOrEqual(2);
    const histories = await Promise.all(
      files.map(async (file) => ({ workflowId: file, history: JSON.parse(await readFile(historiesDir + file, 'utf8')) })),
    );
    const results = [];
    for await (const result of Worker.runReplayHistories({ workflowBundle: await workflowBundle() }, histories)) results.push(result);
    expect(results).toHaveLength(files.length);
    for (const result of results) expect(result.error, `${result.workflowId}: ${result.error}`).toBeUndefined();
  });
});
