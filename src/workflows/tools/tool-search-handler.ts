import type { ToolArgs } from '../../shared/tools/define-tool.js';
import { defaultToolSearchResults, type toolSearch } from '../../shared/tools/tool-search.js';
import { searchTools } from '../tool-search.js';
import type { ToolContext } from './tool-context.js';

/** ToolSearch: finds deferred tools, and loads those it returns into the session for the rounds after this one. */
export function searchDeferredTools(args: ToolArgs<typeof toolSearch>, context: ToolContext): string {
  const { state } = context;
  const deferred = new Set(state.deferredTools.deferred);
  const entries = (state.settings.hostTools?.tools ?? []).filter((tool) => deferred.has(tool.name));
  const matches = searchTools(entries, args.query, args.max_results ?? defaultToolSearchResults);
  state.deferredTools.load(matches);
  return JSON.stringify({
    matches,
    query: args.query,
    total_deferred_tools: entries.length,
    // As the catalogue was taken (at the session's start or its run's): a server's tools join it once it has listed them.
    pending_mcp_servers: state.settings.hostTools?.pending_mcp_servers ?? [],
  });
}
