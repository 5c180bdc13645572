import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import type { ToolArgs } from '../../shared/tools/define-tool.js';
import type { webFetch, webSearch } from '../../shared/tools/web.js';
import { replyText } from './reply.js';
import type { ToolContext } from './tool-context.js';

// The activities heartbeat, so that an interrupt or a stop cancels a fetch or search under way (see whileHeartbeating).
const web = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '2 seconds', maximumAttempts: 3 },
});

export function searchWeb(args: ToolArgs<typeof webSearch>): Promise<string> {
  const summary = `webSearch: ${args.query.length > 80 ? `${args.query.slice(0, 79)}…` : args.query}`;
  return web.searchWeb.executeWithOptions({ summary }, [args]).then(replyText);
}

export function fetchWeb(args: ToolArgs<typeof webFetch>, context: ToolContext): Promise<string> {
  return web.fetchWebPage.executeWithOptions({ summary: `webFetch: ${hostOf(args.url)}` }, [args]).then((reply) => {
    // The helper model's calls that applied the prompt are this session's spending too.
    for (const usage of reply.usage ?? []) context.state.usage.record(usage, 'webFetch');
    return replyText(reply);
  });
}

function hostOf(url: string): string {
  const match = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(url);
  return match?.[1] || url.slice(0, 80);
}
