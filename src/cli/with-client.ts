import { ArborClient } from '../client/arbor-client.js';
import type { ConnectionSettings } from '../client/connection.js';
import { UsageError } from './usage-error.js';

/** Runs `work` with a connected client and always closes the connection. */
export async function withClient<T>(settings: ConnectionSettings, work: (client: ArborClient) => Promise<T>): Promise<T> {
  let client: ArborClient;
  try {
    client = await ArborClient.fromSettings(settings);
  } catch (error) {
    throw new UsageError(
      `Cannot reach the Temporal server at ${settings.address} (${(error as Error).message}). ` +
        'Start one with `arbor dev`, or point TEMPORAL_ADDRESS at yours.',
    );
  }
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}
