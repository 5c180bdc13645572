import type { HostToolEntry } from '../shared/host-tools.js';
import { toolSearch } from '../shared/tools/tool-search.js';
import type { DeploymentSettings } from './deployment-settings.js';

/**
 * A session's deferred host tools: once its host tools pass the limits of its environment (`tool_search`), the model
 * is sent none of their specs, only ToolSearch, which loads those it finds for the rounds after. Plain data: `loaded`
 * is carried across continue-as-new; `deferred` is worked out again from the catalogue as each run chooses its tools.
 */
export class DeferredTools {
  /** The session's host tools held back from the model until loaded (empty: none is deferred). */
  deferred: readonly string[] = [];
  private readonly loadedNames: string[];

  constructor(loaded: readonly string[] = []) {
    this.loadedNames = [...loaded];
  }

  /** The deferred tools loaded so far, in the order ToolSearch found them (of a catalogue that changed, those left). */
  get loaded(): string[] {
    return this.loadedNames.filter((name) => this.deferred.includes(name));
  }

  load(names: readonly string[]): void {
    for (const name of names) if (this.deferred.includes(name) && !this.loadedNames.includes(name)) this.loadedNames.push(name);
  }

  /** Whether the model may call the tool now: it is not deferred, or it was loaded. */
  isCallable(name: string): boolean {
    return !this.deferred.includes(name) || this.loadedNames.includes(name);
  }

  /** The tools the model request names: deferred ones only once loaded. */
  visible(names: readonly string[]): string[] {
    return this.deferred.length === 0 ? [...names] : names.filter((name) => this.isCallable(name));
  }

  carry(): { loaded_tools?: string[] } {
    return this.loadedNames.length > 0 ? { loaded_tools: [...this.loadedNames] } : {};
  }

  snapshot(): { tools?: { deferred: number; loaded: string[] } } {
    return this.deferred.length > 0 ? { tools: { deferred: this.deferred.length, loaded: this.loaded } } : {};
  }
}

/**
 * A run's tools, with ToolSearch added when its host tools pass the limits: records which are deferred. Called as each
 * run chooses its tools, from recorded state only (the environment's limits and the catalogue), so replay agrees.
 */
export function withToolSearch(settings: DeploymentSettings, tools: DeferredTools, names: readonly string[]): string[] {
  const hostTools = (settings.hostTools?.tools ?? []).filter((tool) => names.includes(tool.name));
  tools.deferred = passesLimits(settings, hostTools) ? hostTools.map((tool) => tool.name) : [];
  return tools.deferred.length > 0 ? [...names, toolSearch.name] : [...names];
}

function passesLimits(settings: DeploymentSettings, hostTools: readonly HostToolEntry[]): boolean {
  const limits = settings.toolSearch;
  if (!limits || hostTools.length === 0) return false;
  return hostTools.length > limits.max_host_tools || schemaTokens(hostTools) > limits.max_schema_tokens;
}

/** A rough token count of the specs the model would be sent: four characters a token. */
export function schemaTokens(hostTools: readonly HostToolEntry[]): number {
  let characters = 0;
  for (const tool of hostTools)
    characters += JSON.stringify({ name: tool.name, description: tool.description, parameters: tool.parameters }).length;
  return Math.ceil(characters / 4);
}

/**
 * What the system prompt says while tools are deferred (nothing otherwise). The same whatever has been loaded, so that
 * the prompt a provider may cache does not change as ToolSearch loads tools.
 */
export function deferredToolsNote(tools: DeferredTools): string {
  if (tools.deferred.length === 0) return '';
  return (
    `\n\n${tools.deferred.length} more tools are available but not listed until loaded: call ToolSearch with keywords ` +
    '(or "select:NAME") to find and load the ones you need before calling them.'
  );
}

/** The tool error of a call to a deferred tool the model has not loaded. */
export function notLoadedRefusal(name: string): string {
  return `${name} is a deferred tool whose schema you have not loaded, so the call did not run. Call ToolSearch with query "select:${name}" first, then call it again.`;
}
