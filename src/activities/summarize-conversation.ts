import { Context } from '@temporalio/activity';
import { summaryPrompt, type SummarizeInput, type SummarizeReply } from '../shared/compaction.js';
import { demoModelName } from '../shared/model.js';
import { budgetForContextTokens } from './context-window.js';
import { withCost } from './call-model.js';
import { toModelFailure } from './model-errors.js';
import { readModelReply } from './model-reply.js';
import { contextTokensFor, sessionIdHeader, type ModelSettings } from './model-settings.js';
import { createOpenAIClient } from './openai-client.js';
import { defaultPrices } from './prices.js';
import { summaryRequestText } from './summary-request.js';
import { summaryCut } from '../shared/summary-cut.js';
import type { TranscriptCache } from './transcript-cache.js';

const heartbeatEveryMs = 2_000;
/** The share of the session model's request budget the entries kept after a summary fill, when no call said its room. */
const keptShare = 0.4;
/** The most of the session model's request budget a summary may take, and the most characters with no window known. */
const summaryShare = 0.2;
const defaultMaxSummaryChars = 20_000;

/**
 * The `summarizeConversation` activity: the worker's summary model (else the session's) writes a summary of the
 * session's older entries, with `summaryPrompt`; the workflow puts it in the transcript. Shares `callModel`'s
 * transcript cache, and its cursor: the input carries only the entries the worker was not sent before.
 */
export function createSummarizeConversation(settings: ModelSettings, transcripts: TranscriptCache) {
  const openai = createOpenAIClient(settings);
  const prices = settings.prices ?? defaultPrices;

  return async function summarizeConversation(input: SummarizeInput): Promise<SummarizeReply> {
    const transcript = await transcripts.resolve(input.session_id, input.run_id, input.transcript_start, input.transcript_delta);
    if (settings.summaries === false) return { nothing: 'Summaries are turned off on this worker (ARBOR_SUMMARIES=off).' };
    const sessionWindow = contextTokensFor(settings, input.model);
    const keepChars = input.keep_chars ?? (sessionWindow === undefined ? undefined : budgetForContextTokens(sessionWindow) * keptShare);
    const cut = summaryCut(transcript, input.reason, keepChars);
    if (!cut) return { nothing: 'There is nothing to summarize: every entry since the last summary belongs to the newest turn.' };
    const model = settings.summaryModel ?? input.model;
    const summaryWindow = contextTokensFor(settings, model);
    const text = summaryRequestText(cut, summaryWindow === undefined ? undefined : budgetForContextTokens(summaryWindow));
    // A summary longer than its share of the session's window would crowd out the turns it was written to make room for.
    const maxChars =
      sessionWindow === undefined ? defaultMaxSummaryChars : Math.floor(budgetForContextTokens(sessionWindow) * summaryShare);
    const done = (summary: string) => ({
      summary: bounded(summary, maxChars),
      through_entry_id: cut.through.id,
      entries: cut.entries,
      model,
    });
    if (model === demoModelName) return done(`(demo model) ${cut.entries} earlier entries, from: ${text.slice(0, 300)}`);

    const context = Context.current();
    const heartbeat = setInterval(() => context.heartbeat(), heartbeatEveryMs);
    try {
      const completion: unknown = await openai.chat.completions.create(
        {
          model,
          messages: [
            { role: 'system', content: summaryPrompt },
            { role: 'user', content: text },
          ],
        },
        { signal: context.cancellationSignal, ...(settings.sendSessionId ? { headers: { [sessionIdHeader]: input.session_id } } : {}) },
      );
      const reply = withCost(readModelReply(completion, 'summary'), model, prices);
      const summary = reply.content?.trim();
      if (!summary) throw new Error('the summary model answered with no text');
      return { ...done(summary), ...(reply.usage ? { usage: reply.usage } : {}) };
    } catch (error) {
      throw toModelFailure(error, model);
    } finally {
      clearInterval(heartbeat);
    }
  };
}

function bounded(summary: string, maxChars: number): string {
  if (summary.length <= maxChars) return summary;
  const marker = `\n[… the summary was cut to ${maxChars} characters …]`;
  return summary.slice(0, Math.max(0, maxChars - marker.length)) + marker;
}
