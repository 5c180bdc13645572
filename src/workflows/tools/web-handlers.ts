import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import type { ToolArgs } from '../../shared/tools/define-tool.js';
import type { webSearch } from '../../shared/tools/web.js';
import { replyText } from './reply.js';

const web = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', maximumAttempts: 3 },
});

export async function searchWeb(args: ToolArgs<typeof webSearch>): Promise<string> {
  const summary = `webSearch: ${args.query.length > 80 ? `${args.query.slice(0, 79)}…` : args.query}`;
  return replyText(await web.searchWeb.executeWithOptions({ summary }, [args]));
}
