import { Command } from 'commander';
import { installQuietRuntime } from '../native-runtime.js';
import { webFetchFromEnv } from '../../activities/web-fetch-settings.js';
import {
  connectionSettingsFrom,
  withConnectionFlags,
  withToolModulesFlag,
  type ConnectionFlags,
  type ToolModulesFlag,
} from '../options.js';
import { loadToolModules, toolModulePaths } from '../tool-modules.js';
import { checkServerAnswers } from '../server-reach.js';
import { mcpServersFromEnv } from '../../mcp/config.js';

export const workerCommand = withToolModulesFlag(
  withConnectionFlags(new Command('worker').description('run an Arbor worker against the configured Temporal server until Ctrl-C')),
).action(async (flags: ConnectionFlags & ToolModulesFlag) => {
  const settings = connectionSettingsFrom(flags);
  const tools = await loadToolModules(toolModulePaths(flags.tools));
  const mcpServers = mcpServersFromEnv();
  await checkServerAnswers(settings.address);
  // The CLI's workers offer webFetch unless ARBOR_WEB_FETCH=off.
  await installQuietRuntime();
  const { createArborWorker } = await import('../../worker/create-worker.js');
  const worker = await createArborWorker({ connection: settings, tools, mcpServers, webFetch: webFetchFromEnv(process.env, true) });
  process.once('SIGINT', () => worker.shutdown()).once('SIGTERM', () => worker.shutdown());
  const mcp = worker.mcpStatus().map((server) => `${server.name} (${server.state}, ${server.tool_count} tools)`);
  const served =
    (tools.length > 0 ? `, serving ${tools.map((tool) => tool.name).join(', ')}` : '') +
    (mcp.length > 0 ? `, MCP servers ${mcp.join(', ')}` : '');
  process.stderr.write(
    `Arbor worker polling task queue "${settings.taskQueue}" on ${settings.address} (namespace ${settings.namespace})${served}. Ctrl-C stops it.\n`,
  );
  await worker.run();
  process.stderr.write('Arbor worker stopped.\n');
});
