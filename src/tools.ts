/** Your own tools (`arbor/tools`): define host tools (run by your worker) and remote tools (run on another task queue). */
export {
  defineHostTool,
  defineRemoteTool,
  type HostTool,
  type HostToolContext,
  type HostToolDefinition,
  type HostToolRetry,
  type RemoteTool,
  type RemoteToolDefinition,
  type ToolDefinition,
  type ToolOptions,
} from './tools/define.js';
export { ToolDefinitionError } from './tools/catalogue.js';
export {
  hostToolActivityType,
  hostToolNamePattern,
  type HostToolActivityInput,
  type HostToolCatalogue,
  type HostToolEntry,
} from './shared/host-tools.js';
/** For a handler's refusal that retrying cannot help: `throw ApplicationFailure.nonRetryable('...')`. */
export { ApplicationFailure } from '@temporalio/common';
