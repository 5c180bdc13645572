import { missingNamespace, missingNamespaceMessage } from './missing-namespace.js';
import { Command, CommanderError } from 'commander';
import { ArborClientError } from '../client/errors.js';
import { answerCommand } from './commands/answer.js';
import { chatCommand } from './commands/chat.js';
import { consoleCommand } from './commands/console.js';
import { watchCommand } from './commands/watch.js';
import { memoryCommand } from './commands/memory.js';
import { listCommand } from './commands/list.js';
import { loopsCommand } from './commands/loops.js';
import { automationsCommand } from './commands/automations.js';
import { devCommand } from './commands/dev.js';
import { doctorCommand } from './commands/doctor.js';
import { runCommand } from './commands/run.js';
import { sendCommand } from './commands/send.js';
import { executePlanCommand } from './commands/execute-plan.js';
import { budgetCommand } from './commands/budget.js';
import { compactCommand } from './commands/compact.js';
import { forkCommand } from './commands/fork.js';
import { showCommand } from './commands/show.js';
import { startCommand } from './commands/start.js';
import { stopCommand } from './commands/stop.js';
import { treeCommand } from './commands/tree.js';
import { toolsCommand } from './commands/tools.js';
import { workerCommand } from './commands/worker.js';
import { codecServerCommand } from './commands/codec-server.js';
import { Interrupted, UsageError } from './usage-error.js';
import { ToolDefinitionError } from '../tools/catalogue.js';
import { McpConfigError } from '../mcp/config.js';
import { EncryptionKeysError } from '../codec/encryption-keys.js';
import { packageVersion } from './version.js';

/** Commander's own errors (an unknown flag, a missing argument) read like every other: `arbor: <what to fix>`. */
const oneErrorFormat = {
  outputError: (text: string, write: (text: string) => void) => write(`arbor: ${text.replace(/^error: /, '')}`),
};

export function buildProgram(): Command {
  const program = new Command('arbor')
    .description('Durable LLM agent sessions on Temporal')
    .version(packageVersion(), '-V, --version', 'print the version of arbor')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput(oneErrorFormat);
  for (const command of [
    devCommand,
    workerCommand,
    doctorCommand,
    runCommand,
    startCommand,
    listCommand,
    sendCommand,
    executePlanCommand,
    budgetCommand,
    compactCommand,
    forkCommand,
    showCommand,
    treeCommand,
    toolsCommand,
    stopCommand,
    chatCommand,
    answerCommand,
    watchCommand,
    memoryCommand,
    loopsCommand,
    automationsCommand,
    codecServerCommand,
    consoleCommand,
  ]) {
    program.addCommand(command.exitOverride().showHelpAfterError('(run with --help for usage)').configureOutput(oneErrorFormat));
  }
  return program;
}

/** Runs the CLI and exits the process when the command is done (Temporal's native runtime would keep it alive). */
export async function main(argv: string[] = process.argv): Promise<never> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    process.exitCode = exitCodeFor(error);
  }
  // Let buffered output reach its destination before exiting.
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  await new Promise<void>((resolve) => process.stderr.write('', () => resolve()));
  process.exit();
}

function exitCodeFor(error: unknown): number {
  if (error instanceof Interrupted) return 130;
  const namespace = error instanceof Error ? missingNamespace(error.message) : undefined;
  if (namespace !== undefined) {
    process.stderr.write(`arbor: ${missingNamespaceMessage(namespace, process.env.TEMPORAL_ADDRESS?.trim() || undefined)}\n`);
    return 2;
  }
  if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2; // commander already printed the message
  if (
    error instanceof UsageError ||
    error instanceof ArborClientError ||
    error instanceof ToolDefinitionError ||
    error instanceof McpConfigError ||
    error instanceof EncryptionKeysError
  ) {
    process.stderr.write(`arbor: ${error.message}\n`);
    return 2;
  }
  process.stderr.write(`arbor: ${error instanceof Error ? error.message : String(error)}\n`);
  if (process.env.ARBOR_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  return 1;
}
