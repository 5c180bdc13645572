import { Command } from 'commander';
import {
  connectionSettingsFrom,
  port,
  withConnectionFlags,
  withToolModulesFlag,
  type ConnectionFlags,
  type ToolModulesFlag,
} from '../options.js';
import { loadToolModules, toolModulePaths } from '../tool-modules.js';
import { mcpServersFromEnv } from '../../mcp/config.js';
import { embeddedDatabase, embeddedUiPort, startEmbeddedServer, startInProcessWorker } from '../local-runtime.js';
import type { DevServer } from '../../temporal/dev-server.js';
import { checkServerAnswers } from '../server-reach.js';
import { rootSessionsLink, webUiBase } from '../web-ui-link.js';
import { startDevConsole } from './dev-console.js';

interface DevFlags extends ConnectionFlags {
  port?: number;
  uiPort?: number;
  db?: string;
  consolePort?: number;
  console: boolean;
}

export const devCommand = withToolModulesFlag(
  withConnectionFlags(
    new Command('dev')
      .description('run the Temporal dev server (SQLite under .arbor/, Web UI) and a worker in one foreground process; Ctrl-C stops both')
      .option('--port <port>', 'Temporal frontend port', port, 7233)
      .option('--ui-port <port>', 'Web UI port', port, embeddedUiPort)
      .option('--db <file>', 'SQLite file that keeps sessions across restarts', embeddedDatabase)
      .option('--console-port <port>', "the web console's port (on 127.0.0.1)", port, 7300)
      .option('--no-console', 'do not serve the web console'),
  ),
).action(async (flags: DevFlags & ToolModulesFlag) => {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  // Loaded (and checked) before the server starts: a bad tools module stops here.
  const tools = await loadToolModules(toolModulePaths(flags.tools));
  const mcpServers = mcpServersFromEnv();
  let settings = connectionSettingsFrom(flags);
  let server: DevServer | undefined;
  if (settings.addressGiven) {
    await checkServerAnswers(settings.address);
    log(`Using the Temporal server at ${settings.address} (TEMPORAL_ADDRESS); not starting one.`);
  } else {
    ({ server, settings } = await startEmbeddedServer(settings, log, { port: flags.port!, uiPort: flags.uiPort!, dbFile: flags.db! }));
  }
  let closeConsole: (() => Promise<void>) | undefined;
  try {
    const { worker, run } = await startInProcessWorker(settings, tools, mcpServers);
    const stop = () => worker.shutdown();
    process.once('SIGINT', stop).once('SIGTERM', stop);
    log(
      `Arbor is running: Temporal at ${settings.address}${server?.uiUrl ? `, Web UI at ${server.uiUrl}` : ''}, task queue "${settings.taskQueue}". Ctrl-C stops.`,
    );
    const ui = server?.uiUrl ?? webUiBase(settings);
    if (ui) {
      log(
        `Sessions in the Web UI: ${rootSessionsLink(ui, settings.namespace)} (arbor show <id> prints the link to a session's whole tree).`,
      );
    }
    const console_ = flags.console ? await startDevConsole(settings, flags.consolePort!, ui, log) : undefined;
    if (server)
      log(`From another terminal: TEMPORAL_ADDRESS=${settings.address} arbor run "…" (in this folder, arbor run finds it by itself).`);
    closeConsole = console_?.close;
    await run;
  } finally {
    await closeConsole?.();
    await server?.stop();
    log('Stopped.');
  }
});
