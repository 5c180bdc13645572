import type { Client } from '@temporalio/client';
import { hostToolCatalogueQuery, streamDeltasSignal, transcriptQuery } from '../shared/messages.js';
import type { HostToolCatalogue } from '../shared/host-tools.js';
import { CatalogueCache } from './catalogue-cache.js';
import { demoModelName, type SessionEnvironment } from '../shared/model.js';
import { createCallModel } from './call-model.js';
import { createSummarizeConversation } from './summarize-conversation.js';
import { contextTokensFor, type ModelSettings } from './model-settings.js';
import { TranscriptCache } from './transcript-cache.js';
import { readTranscriptPages } from '../client/access/transcript-pages.js';
import { createSessionTreeActivities } from './session-tree.js';
import { createTaskBoardActivities } from './task-board.js';
import { createMemoryActivities } from './memory.js';
import type { MemoryStoreAccess } from '../client/access/memory-stores.js';
import { createAutomationActivities } from './automations.js';
import { createWebActivities } from './web.js';
import { createModelCheck } from './known-models.js';
import { createModelAliases } from './model-aliases.js';
import { createAgentMailbox } from '../client/access/agent-mailbox.js';
import { secretKeyFromEnv } from '../client/secret-seal.js';
import { webFetchFromEnv, type WebFetchSettings } from './web-fetch-settings.js';
import { searchConfigFromEnv, type SearchConfig } from '../web/search/index.js';
import { allowListFromEnv, type AllowList } from '../web/fetch/index.js';
import { createOpenAIClient } from './openai-client.js';
import { timeZoneProblem } from '../shared/time-zones.js';
import { cronTimezoneFromEnv, loopLimitsFromEnv, questionTimeoutFromEnv } from './durations.js';
import { boundedQuery } from '../client/access/query-failures.js';
import { toolSearchLimits, type ToolSearchSettings } from './tool-search-settings.js';
import { createSkillActivities, skillsDirFromEnv } from './skills.js';
import { automationDisallowedToolsFromEnv, checkAutomationDisallowedTools } from './automation-disallowed-tools.js';

export interface ActivityDependencies {
  client: Client;
  model: ModelSettings;
  /** Whether the server has Arbor's search attributes (default true). */
  searchAttributes?: boolean;
  /** Search engines (default: from the worker's environment); with none, webSearch is withheld from the model. */
  search?: SearchConfig;
  /** Hosts and ranges webFetch may reach although private (default: ARBOR_FETCH_ALLOW). */
  fetchAllow?: AllowList;
  /**
   * Whether new sessions are offered webFetch, and its extraction threshold; `false`: not offered (default: from
   * ARBOR_WEB_FETCH and ARBOR_FETCH_EXTRACTION_THRESHOLD, off when unset).
   */
  webFetch?: WebFetchSettings | false;
  /** How long askUser waits for an answer (default: ARBOR_QUESTION_TIMEOUT; unset waits without limit). */
  questionTimeoutSeconds?: number | undefined;
  /** Loop limits (default: ARBOR_LOOP_MIN_INTERVAL, ARBOR_LOOP_MAX_AGE; else 10 seconds and 7 days). */
  loopLimits?: { min_interval_seconds?: number; max_age_seconds?: number };
  /** Time zone of cron expressions (default: ARBOR_CRON_TIMEZONE, else UTC). */
  cronTimezone?: string | undefined;
  /**
   * The host and remote tools this worker offers new sessions (built with buildCatalogue), or a function giving the
   * catalogue it offers now (with its MCP servers' tools, which change as they do); none by default.
   */
  hostTools?: HostToolCatalogue | (() => HostToolCatalogue);
  /**
   * The administrator's list: tools no automation run may use, whatever its automation names (default:
   * ARBOR_AUTOMATION_DISALLOWED_TOOLS; none).
   */
  automationDisallowedTools?: readonly string[];
  /** The key secret answers are sealed with, shared with the answering clients (default: ARBOR_SECRET_KEY; none: refused). */
  secretKey?: string | undefined;
  /** When sessions' host tools are deferred behind ToolSearch; false: never (default: ARBOR_TOOL_SEARCH*, else 40 tools). */
  toolSearch?: ToolSearchSettings | false;
  /** The folder of Skill's Markdown files (default: ARBOR_SKILLS_DIR); false or none: Skill is not offered. */
  skillsDir?: string | false;
  /** The PostgreSQL memory store the worker opened (see memoryStoreFromEnv); none: each owner's memory workflow. */
  memoryDatabase?: MemoryStoreAccess | undefined;
}

/** The activities a worker registers, closed over the worker's client and model settings. */
export function createActivities({
  client,
  model,
  searchAttributes = true,
  search = searchConfigFromEnv(),
  fetchAllow = allowListFromEnv(),
  webFetch = webFetchFromEnv(),
  questionTimeoutSeconds = questionTimeoutFromEnv(),
  loopLimits = loopLimitsFromEnv(),
  cronTimezone = cronTimezoneFromEnv(),
  hostTools: offered,
  automationDisallowedTools: disallowed,
  secretKey = secretKeyFromEnv(),
  toolSearch,
  skillsDir = skillsDirFromEnv(),
  memoryDatabase,
}: ActivityDependencies) {
  const toolSearchLimitsOfSessions = toolSearchLimits(toolSearch);
  const currentHostTools = typeof offered === 'function' ? offered : () => offered;
  const automationDisallowedTools =
    disallowed === undefined ? automationDisallowedToolsFromEnv() : checkAutomationDisallowedTools(disallowed);
  const zoneProblem = cronTimezone === undefined ? undefined : timeZoneProblem(cronTimezone);
  if (zoneProblem) throw new Error(`cronTimezone: ${zoneProblem}`);
  const unavailableTools = [...(search.engines.length === 0 ? ['webSearch'] : []), ...(webFetch === false ? ['webFetch'] : [])];
  const transcripts = new TranscriptCache((sessionId, runId, count) => {
    const handle = client.workflow.getHandle(sessionId, runId);
    return readTranscriptPages((page) => boundedQuery(client, sessionId, () => handle.query(transcriptQuery, page)), { limit: count });
  });

  const catalogues = new CatalogueCache(currentHostTools, (sessionId, runId) =>
    boundedQuery(client, sessionId, () => client.workflow.getHandle(sessionId, runId).query(hostToolCatalogueQuery)),
  );

  return {
    ...createSessionTreeActivities(client),
    ...createAgentMailbox(client),
    ...createTaskBoardActivities(client),
    ...createMemoryActivities(client, memoryDatabase),
    ...createAutomationActivities(client),
    ...createSkillActivities(skillsDir),
    ...createWebActivities({
      search,
      fetchAllow,
      fetch: webFetch,
      ...(model.fetchModel
        ? {
            extraction: {
              client: createOpenAIClient(model),
              model: model.fetchModel,
              contextTokens: contextTokensFor(model, model.fetchModel),
              prices: model.prices,
            },
          }
        : {}),
    }),
    callModel: createCallModel(model, transcripts, catalogues, secretKey, (execution, batch) =>
      client.workflow.getHandle(execution.workflowId, execution.runId).signal(streamDeltasSignal, batch),
    ),
    summarizeConversation: createSummarizeConversation(model, transcripts),

    /** Whether this worker can open sealed secret answers (soai ask_user's `secret` questions). */
    async secretAnswersEnabled(): Promise<boolean> {
      return secretKey !== undefined;
    },
    ...createModelAliases(model),
    ...createModelCheck(model, model.apiKey !== undefined || model.baseURL !== undefined ? createOpenAIClient(model) : undefined),

    /** The catalogue of host tools this worker offers (null: none), read where a session takes a catalogue again. */
    async describeHostTools(): Promise<HostToolCatalogue | null> {
      const hostTools = currentHostTools();
      return hostTools && hostTools.tools.length > 0 ? hostTools : null;
    },

    /** The model a new session uses (its own or the worker's default) and whether search attributes can be set. */
    async prepareSession(requestedModel?: string): Promise<SessionEnvironment> {
      const name = requestedModel ?? model.defaultModel;
      const hostTools = currentHostTools();
      return {
        model: name,
        provider: name === demoModelName ? 'demo' : 'openai-compatible',
        search_attributes: searchAttributes,
        ...(unavailableTools.length > 0 ? { unavailable_tools: unavailableTools } : {}),
        ...(questionTimeoutSeconds !== undefined ? { question_timeout_seconds: questionTimeoutSeconds } : {}),
        ...(loopLimits.min_interval_seconds !== undefined ? { loop_min_interval_seconds: loopLimits.min_interval_seconds } : {}),
        ...(loopLimits.max_age_seconds !== undefined ? { loop_max_age_seconds: loopLimits.max_age_seconds } : {}),
        ...(cronTimezone ? { cron_timezone: cronTimezone } : {}),
        ...(hostTools && hostTools.tools.length > 0 ? { host_tools: hostTools } : {}),
        ...(automationDisallowedTools.length > 0 ? { automation_disallowed_tools: automationDisallowedTools } : {}),
        ...(toolSearchLimitsOfSessions ? { tool_search: toolSearchLimitsOfSessions } : {}),
        ...(skillsDir ? { skills: true as const } : {}),
      };
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
