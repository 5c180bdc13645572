import { defaultToolSearchLimits, type ToolSearchLimits } from '../shared/tools/tool-search.js';

/** When a worker defers its sessions' host tools behind ToolSearch (createArborWorker({ toolSearch })). */
export interface ToolSearchSettings {
  /** Deferred when a session has more host tools than this (default 40; ARBOR_TOOL_SEARCH_MAX_TOOLS). */
  maxHostTools?: number;
  /** Or when their specs come to more tokens than this, at four characters a token (default 20,000; ARBOR_TOOL_SEARCH_MAX_SCHEMA_TOKENS). */
  maxSchemaTokens?: number;
}

/** The limits a worker records in new sessions' environment, or false (ARBOR_TOOL_SEARCH=off): never deferred. */
export function toolSearchLimits(
  settings: ToolSearchSettings | false | undefined,
  env: NodeJS.ProcessEnv = process.env,
): ToolSearchLimits | false {
  if (settings === false) return false;
  if (settings === undefined) return toolSearchFromEnv(env);
  return {
    max_host_tools: checked('maxHostTools', settings.maxHostTools, defaultToolSearchLimits.max_host_tools),
    max_schema_tokens: checked('maxSchemaTokens', settings.maxSchemaTokens, defaultToolSearchLimits.max_schema_tokens),
  };
}

function toolSearchFromEnv(env: NodeJS.ProcessEnv): ToolSearchLimits | false {
  const switched = env['ARBOR_TOOL_SEARCH']?.trim().toLowerCase();
  if (switched === 'off') return false;
  if (switched && switched !== 'on') throw new Error(`ARBOR_TOOL_SEARCH="${env['ARBOR_TOOL_SEARCH']}" must be on or off.`);
  return {
    max_host_tools: fromEnv(env, 'ARBOR_TOOL_SEARCH_MAX_TOOLS', defaultToolSearchLimits.max_host_tools),
    max_schema_tokens: fromEnv(env, 'ARBOR_TOOL_SEARCH_MAX_SCHEMA_TOKENS', defaultToolSearchLimits.max_schema_tokens),
  };
}

function fromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name]?.trim().replace(/_/g, '');
  if (!text) return fallback;
  return checked(name, Number(text), fallback);
}

function checked(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0)
    throw new Error(`${name} must be a whole number, 0 or more (default ${fallback}); got ${value}.`);
  return value;
}
