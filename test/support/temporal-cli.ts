import { execFile } from 'node:child_process';
import { inject } from 'vitest';

export interface TemporalCliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs Temporal's own CLI (the binary Arbor installs) against the shared dev server, as a user of another client
 * would: `temporal(['workflow', 'signal', '--workflow-id', id, '--name', 'userMessage', '--input', '"hi"'])`.
 */
export function temporal(args: string[], timeoutMs = 60_000, address = inject('temporalAddress')): Promise<TemporalCliResult> {
  const connection = ['--address', address, '--namespace', 'default'];
  return new Promise((resolve) => {
    execFile(
      inject('temporalCliPath'),
      [...args, ...connection],
      { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The same, failing with what the CLI printed unless it exits with 0. */
export async function temporalOk(args: string[], timeoutMs?: number, address?: string): Promise<string> {
  const result = await temporal(args, timeoutMs, address);
  if (result.code !== 0) throw new Error(`temporal ${args.join(' ')} exited with ${result.code}:\n${result.stderr}${result.stdout}`);
  return result.stdout;
}
