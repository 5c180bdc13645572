import { ArborClient } from '../../client/arbor-client.js';
import { startConsoleServer } from '../../console/server.js';
import type { ConnectionSettings } from '../../client/connection.js';

/**
 * The web console beside the Temporal Web UI, on loopback. A console that cannot start (its port is taken) is said
 * and left out: the server and the worker go on.
 */
export async function startDevConsole(
  settings: ConnectionSettings,
  port: number,
  webUi: string | undefined,
  log: (line: string) => void,
): Promise<{ close: () => Promise<void> } | undefined> {
  const client = await ArborClient.fromSettings(settings);
  try {
    const server = await startConsoleServer({
      client,
      port,
      namespace: settings.namespace,
      ...(webUi ? { webUiBase: webUi } : {}),
    });
    log(`Arbor console at ${server.url} (sessions, their trees live, questions and approvals; --no-console leaves it out).`);
    return {
      close: async () => {
        await server.close();
        await client.close();
      },
    };
  } catch (error) {
    await client.close();
    log(`The web console did not start: ${(error as Error).message} (--console-port picks another port).`);
    return undefined;
  }
}
