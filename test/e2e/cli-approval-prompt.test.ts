import { mkdir, rm, writeFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { devServerSettings } from '../support/connection.js';
import { Terminal } from '../support/terminal.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const scratch = `${root}.arbor/cli-approval-${randomUUID()}`;
const marker = `${scratch}/ran.txt`;

describe('arbor run on a terminal, when a host tool call needs approval', () => {
  let terminal: Terminal | undefined;

  beforeAll(async () => {
    await mkdir(scratch, { recursive: true });
    // A tools module for the in-process worker: its handler leaves a file behind, so a denied call is seen not to run.
    await writeFile(
      `${scratch}/tools.ts`,
      [
        `import { appendFileSync } from 'node:fs';`,
        `import { z } from 'zod';`,
        `import { defineHostTool } from '${root}src/tools.ts';`,
        `export const wire = defineHostTool({`,
        `  name: 'wire_money', description: 'Wires money.', input: z.object({ eur: z.number() }), needsApproval: true,`,
        `  run: ({ eur }) => { appendFileSync(${JSON.stringify(marker)}, String(eur)); return 'wired ' + eur + ' EUR'; },`,
        `});`,
      ].join('\n'),
    );
  });

  afterEach(async () => {
    await terminal?.kill();
    terminal = undefined;
  });

  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  async function runAsking(eur: number): Promise<Terminal> {
    const settings = devServerSettings();
    terminal = await Terminal.startCli(['run', '--tools', `${scratch}/tools.ts`, `/tool wire_money {"eur": ${eur}}`], {
      TEMPORAL_ADDRESS: settings.address,
      ARBOR_TASK_QUEUE: settings.taskQueue,
    });
    await terminal.waitFor(`[Approval] May wire_money run with {"eur": ${eur}}?`, 90_000);
    return terminal;
  }

  it('runs the call once Approve is picked', { timeout: 150_000 }, async () => {
    const terminal = await runAsking(11);
    await terminal.press('Enter');
    const { code, screen } = await terminal.waitForExit(60_000);
    expect(code, screen).toBe(0);
    expect(screen).toContain('✓ wire_money: wired 11 EUR');
  });

  it('asks why after Deny and gives the model the reason, without running the call', { timeout: 150_000 }, async () => {
    const terminal = await runAsking(22);
    await terminal.press('Down', 'Enter');
    await terminal.waitFor('Approval: why (optional, the model reads it)', 10_000);
    await terminal.type('not today');
    await terminal.press('Enter');
    const { code, screen } = await terminal.waitForExit(60_000);
    expect(code, screen).toBe(0);
    expect(screen).toContain('✗ wire_money: Error: The user denied the call to wire_money, so it did not run. They said: "not today"');
    expect(screen).not.toContain('wired 22 EUR');
  });
});
