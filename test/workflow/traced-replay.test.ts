import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { dataConverterOption } from '../../src/codec/data-converter.js';
import { parseEncryptionKeys } from '../../src/codec/encryption-keys.js';
import { sessionWorkflowType } from '../../src/shared/session.js';
import { workflowBundlerOptions } from '../../src/worker/workflow-code.js';
import { testEncryptionKeys } from '../support/test-encryption-key.js';

const historiesDir = fileURLToPath(new URL(`../histories/${sessionWorkflowType}/`, import.meta.url));

describe('committed arborSessionV3 histories, recorded without tracing', () => {
  it('replay on a worker that traces, and send no span while they replay', async () => {
    const files = (await readdir(historiesDir)).filter((name) => name.endsWith('.json'));
    const histories = await Promise.all(
      files.map(async (file) => ({ workflowId: file, history: JSON.parse(await readFile(historiesDir + file, 'utf8')) as unknown })),
    );
    // Sub-agent ids and question ids come from the workflow's random source: tracing must not draw from it.
    expect(files).toContain('sub-agents.json');
    const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error };
    const { code } = await bundleWorkflowCode({ ...workflowBundlerOptions(true), logger: quiet });
    const exported: unknown[] = [];
    const sinks = { exporter: { export: { fn: (_info: unknown, spans: unknown[]) => void exported.push(...spans) } } };
    const failures: string[] = [];
    // The encrypted ones with their fixed test key (plain ones pass through the codec as they are).
    const codec = dataConverterOption(parseEncryptionKeys(testEncryptionKeys));
    for await (const result of Worker.runReplayHistories({ workflowBundle: { code }, sinks, ...codec }, histories)) {
      if (result.error) failures.push(`${result.workflowId}: ${String(result.error)}`);
    }
    expect(failures).toEqual([]);
    expect(exported).toEqual([]);
  });
});
