import type { ToolReply } from '../shared/tool-reply.js';
import type { ModelSettings } from './model-settings.js';

/** The activity that turns claurst's model aliases into the models this worker serves (ModelSettings.modelAliases). */
export function createModelAliases(settings: ModelSettings) {
  return {
    async resolveModelAlias(alias: string): Promise<ToolReply<string>> {
      const aliases = settings.modelAliases ?? {};
      const model = aliases[alias];
      if (model !== undefined) return { ok: true, result: model };
      const configured = Object.entries(aliases).map(([name, target]) => `${name} (${target})`);
      return {
        ok: false,
        error:
          `Model alias "${alias}" is not configured on this worker, so no sub-agent was started. ` +
          (configured.length > 0 ? `Aliases it maps: ${configured.join(', ')}.` : 'It maps no aliases (ARBOR_MODEL_ALIASES).') +
          " Leave model out to use this session's model.",
      };
    },
  };
}
