import { Context } from '@temporalio/activity';
import type { ToolReply } from '../shared/tool-reply.js';
import { webSearch, WebSearchError, WebSearchInputError, type SearchConfig, type WebSearchInput, type WebSearchResult } from '../web/search/index.js';

/** The web tools' activities. Configuration (engine keys) stays in the worker; only the query and results enter history. */
export function createWebActivities(search: SearchConfig) {
  return {
    async searchWeb(input: WebSearchInput): Promise<ToolReply<WebSearchResult>> {
      try {
        return { ok: true, result: await webSearch(input, search, { signal: Context.current().cancellationSignal }) };
      } catch (error) {
        if (error instanceof WebSearchError || error instanceof WebSearchInputError) return { ok: false, error: error.message };
        throw error;
      }
    },
  };
}
