import { ArborClient } from '../client/arbor-client.js';
import type { ConnectionSettings } from '../client/connection.js';
import { checkServerAnswers, unreachableServer } from './server-reach.js';

/** Runs `work` with a connected client and always closes the connection. */
export async function withClient<T>(settings: ConnectionSettings, work: (client: ArborClient) => Promise<T>): Promise<T> {
  await checkServerAnswers(settings.address);
  let client: ArborClient;
  try {
    client = await ArborClient.fromSettings(settings);
  } catch (error) {
    throw unreachableServer(settings.address, (error as Error).message);
  }
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}
