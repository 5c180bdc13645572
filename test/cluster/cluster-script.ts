import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('../../deploy/cluster/arbor-cluster.sh', import.meta.url));

/** Runs deploy/cluster/arbor-cluster.sh with `args`; its progress lines go to `log`; rejects when it fails. */
export function runClusterScript(
  args: string[],
  env: Record<string, string>,
  log: (line: string) => void = () => undefined,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [script, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      for (const line of chunk.toString().split('\n')) if (line.startsWith('[arbor-cluster]')) log(line);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`arbor-cluster.sh ${args.join(' ')} exited with ${code}:\n${output.slice(-4_000)}`)),
    );
  });
}
