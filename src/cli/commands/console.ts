import { Command } from 'commander';
import { startConsoleServer } from '../../console/server.js';
import { isLoopbackHost } from '../../console/security.js';
import { connectionSettingsFrom, port, withConnectionFlags, type ConnectionFlags } from '../options.js';
import { withClient } from '../with-client.js';
import { webUiBase } from '../web-ui-link.js';
import { UsageError } from '../usage-error.js';

interface ConsoleFlags extends ConnectionFlags {
  port: number;
  host: string;
  token?: string;
}

export const consoleCommand = withConnectionFlags(
  new Command('console')
    .description('serve the web console: watch session trees live, answer their questions, send messages, stop sub-agents')
    .option('--port <n>', 'port to listen on', port, 7300)
    .option('--host <address>', 'address to bind (anything but loopback requires a token)', '127.0.0.1')
    .option('--token <secret>', 'secret every request must carry (generated and printed when the host is not loopback)'),
).action(async (flags: ConsoleFlags) => {
  if (flags.token !== undefined && flags.token.length < 16) throw new UsageError('--token must be at least 16 characters.');
  const settings = connectionSettingsFrom(flags);
  await withClient(settings, async (client) => {
    const server = await startConsoleServer({
      client,
      host: flags.host,
      port: flags.port,
      ...(flags.token !== undefined ? { token: flags.token } : {}),
      ...(webUiBase(settings) ? { webUiBase: webUiBase(settings)! } : {}),
      namespace: settings.namespace,
    });
    process.stdout.write(`Arbor console: ${server.url}\n`);
    if (!isLoopbackHost(flags.host) && flags.token === undefined)
      process.stdout.write('A token was generated for this non-loopback address: keep the address above private.\n');
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await server.close();
  });
});
