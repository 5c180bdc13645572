import type OpenAI from 'openai';
import { demoModelName } from '../shared/model.js';
import type { ToolReply } from '../shared/tool-reply.js';
import type { ModelSettings } from './model-settings.js';

/** How long the endpoint's list of models is trusted before it is read again. */
const listTtlMs = 60_000;
/** How long reading the list may take: a slow endpoint leaves the check to the configured names. */
const listTimeoutMs = 5_000;
/** The most names a refusal lists. */
const namesShown = 40;

/**
 * The models a worker's settings name: its default, webFetch's, the summaries' (ARBOR_SUMMARY_MODEL), those given a
 * context window, ARBOR_MODELS and the aliases'.
 */
export function configuredModels(settings: ModelSettings): string[] {
  const names = [
    settings.defaultModel,
    ...(settings.fetchModel ? [settings.fetchModel] : []),
    ...(settings.summaryModel ? [settings.summaryModel] : []),
    ...Object.keys(settings.contextTokens?.models ?? {}),
    ...(settings.models ?? []),
    ...Object.values(settings.modelAliases ?? {}),
  ];
  return [...new Set(names)];
}

/**
 * Checks a model a sub-agent is asked to run on before it is started: it must be one the endpoint lists (its
 * `GET /models`, read at most once a minute) or one the worker's settings name. Without an endpoint (the demo model),
 * only the configured names are known. A refusal names the models this worker knows, so the model can choose again.
 */
export function createModelCheck(settings: ModelSettings, openai: OpenAI | undefined) {
  let listed: { names: string[] | undefined; at: number } | undefined;

  async function endpointModels(): Promise<string[] | undefined> {
    if (!openai) return undefined;
    if (listed && Date.now() - listed.at < listTtlMs) return listed.names;
    let names: string[] | undefined;
    try {
      const page = await openai.models.list({ timeout: listTimeoutMs, maxRetries: 0 });
      names = page.data.map((model) => model.id).filter((id) => typeof id === 'string');
    } catch {
      // An endpoint without the list (or unreachable now): the configured names decide.
      names = undefined;
    }
    listed = { names, at: Date.now() };
    return names;
  }

  return {
    async checkModel(name: string): Promise<ToolReply<string>> {
      const configured = [...configuredModels(settings), demoModelName];
      if (configured.includes(name)) return { ok: true, result: name };
      const served = await endpointModels();
      if (served?.includes(name)) return { ok: true, result: name };
      const known = [...new Set([...configured, ...(served ?? [])])];
      const shown = known.slice(0, namesShown).join(', ') + (known.length > namesShown ? `, and ${known.length - namesShown} more` : '');
      return {
        ok: false,
        error:
          `Model "${name}" is not one this worker knows, so no sub-agent was started: ` +
          (served
            ? 'its endpoint does not list it. '
            : 'it is not configured (ARBOR_MODEL, ARBOR_FETCH_MODEL, ARBOR_SUMMARY_MODEL, ARBOR_MODELS). ') +
          `Models it knows: ${shown}. Leave model out to use this session's model.`,
      };
    },
  };
}
