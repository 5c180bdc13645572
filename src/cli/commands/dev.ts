import { Command } from 'commander';
import { connectionSettingsFrom, port, withConnectionFlags, type ConnectionFlags } from '../options.js';
import { embeddedDatabase, embeddedUiPort, startEmbeddedServer, startInProcessWorker } from '../local-runtime.js';
import type { DevServer } from '../../temporal/dev-server.js';

interface DevFlags extends ConnectionFlags {
  port?: number;
  uiPort?: number;
  db?: string;
}

export const devCommand = withConnectionFlags(
  new Command('dev')
    .description('run the Temporal dev server (SQLite under .arbor/, Web UI) and a worker in one foreground process; Ctrl-C stops both')
    .option('--port <port>', 'Temporal frontend port', port, 7233)
    .option('--ui-port <port>', 'Web UI port', port, embeddedUiPort)
    .option('--db <file>', 'SQLite file that keeps sessions across restarts', embeddedDatabase),
).action(async (flags: DevFlags) => {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  let settings = connectionSettingsFrom(flags);
  let server: DevServer | undefined;
  if (settings.addressGiven) {
    log(`Using the Temporal server at ${settings.address} (TEMPORAL_ADDRESS); not starting one.`);
  } else {
    ({ server, settings } = await startEmbeddedServer(settings, log, { port: flags.port!, uiPort: flags.uiPort!, dbFile: flags.db! }));
  }
  try {
    const { worker, run } = await startInProcessWorker(settings);
    const stop = () => worker.shutdown();
    process.once('SIGINT', stop).once('SIGTERM', stop);
    log(
      `Arbor is running: Temporal at ${settings.address}${server?.uiUrl ? `, Web UI at ${server.uiUrl}` : ''}, task queue "${settings.taskQueue}". Ctrl-C stops.`,
    );
    await run;
  } finally {
    await server?.stop();
    log('Stopped.');
  }
});
