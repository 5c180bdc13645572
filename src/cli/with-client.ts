import { ArborClient } from '../client.js';
import type { ConnectionSettings } from '../connection.js';

/** Runs `work` with a connected client and always closes the connection. */
export async function withClient<T>(settings: ConnectionSettings, work: (client: ArborClient) => Promise<T>): Promise<T> {
  const client = await ArborClient.fromSettings(settings);
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}
