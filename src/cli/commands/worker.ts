import { Command } from 'commander';
import { createArborWorker } from '../../worker/create-worker.js';
import { connectionSettingsFrom, withConnectionFlags, type ConnectionFlags } from '../options.js';

export const workerCommand = withConnectionFlags(
  new Command('worker').description('run an Arbor worker against the configured Temporal server until Ctrl-C'),
).action(async (flags: ConnectionFlags) => {
  const settings = connectionSettingsFrom(flags);
  const worker = await createArborWorker({ connection: settings });
  process.once('SIGINT', () => worker.shutdown()).once('SIGTERM', () => worker.shutdown());
  process.stderr.write(
    `Arbor worker polling task queue "${settings.taskQueue}" on ${settings.address} (namespace ${settings.namespace}). Ctrl-C stops it.\n`,
  );
  await worker.run();
  process.stderr.write('Arbor worker stopped.\n');
});
