import { demoModelName, type SessionEnvironment } from '../shared/model.js';
import type { CarriedState } from '../shared/session.js';
import { defaultLoopMaxAgeSeconds, defaultLoopMinIntervalSeconds } from '../shared/tools/loops.js';
import { toolNames } from '../shared/tools/registry.js';
import { profileTools, type ProfileName } from '../shared/tools/profiles/index.js';
import type { LoopLimits } from './loops.js';
import type { HostToolCatalogue, HostToolEntry } from '../shared/host-tools.js';
import { toolSearch, type ToolSearchLimits } from '../shared/tools/tool-search.js';
import { skill } from '../shared/tools/skill.js';

/**
 * Where a session runs, as the worker (or, for a sub-agent, its parent) described it when the session began: taken
 * from its `SessionEnvironment`, carried across continue-as-new, and handed down to its sub-agents.
 */
export interface DeploymentSettings {
  model: string;
  /** False on servers without custom search attributes (the time-skipping test server). */
  searchAttributes: boolean;
  /**
   * Tools this deployment cannot serve (webSearch with no engine configured), and in an automation run those its
   * worker's administrator list withholds (built-in or host tools).
   */
  unavailableTools: string[];
  /** How long askUser waits for an answer; null waits for as long as it takes. */
  questionTimeoutSeconds: number | null;
  loopLimits: LoopLimits;
  /** The time zone cron expressions are read in (ARBOR_CRON_TIMEZONE, default UTC). */
  cronTimezone: string;
  /** The host and remote tools the session may call, as recorded when it began (or took a catalogue again). */
  hostTools: HostToolCatalogue | null;
  /** When host tools are deferred behind ToolSearch; null: never (tool search off, or a session older than it). */
  toolSearch: ToolSearchLimits | null;
  /** Whether the worker has a skills folder, so that the Skill tool is offered. */
  skills: boolean;
}

/** The settings' part of the carried state, in the field names and shape running sessions carry. */
export type CarriedSettings = Pick<
  CarriedState,
  | 'model'
  | 'search_attributes'
  | 'unavailable_tools'
  | 'question_timeout_seconds'
  | 'cron_timezone'
  | 'loop_limits'
  | 'host_tools'
  | 'tool_search'
  | 'skills'
>;

const defaultLoopLimits: LoopLimits = { minIntervalSeconds: defaultLoopMinIntervalSeconds, maxAgeSeconds: defaultLoopMaxAgeSeconds };

/** The settings a run starts with: those carried from the run before, or (a session's first run) the defaults. */
export function settingsFromCarried(carried?: CarriedSettings): DeploymentSettings {
  return {
    model: carried?.model ?? '',
    searchAttributes: carried?.search_attributes ?? false,
    unavailableTools: carried?.unavailable_tools ?? [],
    questionTimeoutSeconds: carried?.question_timeout_seconds ?? null,
    loopLimits: {
      minIntervalSeconds: carried?.loop_limits?.min_interval_seconds ?? defaultLoopLimits.minIntervalSeconds,
      maxAgeSeconds: carried?.loop_limits?.max_age_seconds ?? defaultLoopLimits.maxAgeSeconds,
    },
    cronTimezone: carried?.cron_timezone ?? 'UTC',
    hostTools: carried?.host_tools ?? null,
    toolSearch: carried?.tool_search ?? null,
    skills: carried?.skills === true,
  };
}

/** The settings an environment describes; what an older worker left out keeps its default. */
export function settingsFromEnvironment(environment: SessionEnvironment): DeploymentSettings {
  return {
    model: environment.model,
    searchAttributes: environment.search_attributes,
    unavailableTools: environment.unavailable_tools ?? [],
    questionTimeoutSeconds: environment.question_timeout_seconds ?? null,
    loopLimits: {
      minIntervalSeconds: environment.loop_min_interval_seconds ?? defaultLoopLimits.minIntervalSeconds,
      maxAgeSeconds: environment.loop_max_age_seconds ?? defaultLoopLimits.maxAgeSeconds,
    },
    cronTimezone: environment.cron_timezone ?? 'UTC',
    hostTools: environment.host_tools ?? null,
    toolSearch: environment.tool_search ?? null,
    skills: environment.skills === true,
  };
}

/** The environment a sub-agent inherits: these settings, with the model it was asked to use. */
export function environmentFor(settings: DeploymentSettings, requestedModel?: string): SessionEnvironment {
  const model = requestedModel ?? settings.model;
  return {
    model,
    provider: model === demoModelName ? 'demo' : 'openai-compatible',
    search_attributes: settings.searchAttributes,
    ...(settings.unavailableTools.length > 0 ? { unavailable_tools: [...settings.unavailableTools] } : {}),
    ...(settings.questionTimeoutSeconds !== null ? { question_timeout_seconds: settings.questionTimeoutSeconds } : {}),
    loop_min_interval_seconds: settings.loopLimits.minIntervalSeconds,
    loop_max_age_seconds: settings.loopLimits.maxAgeSeconds,
    cron_timezone: settings.cronTimezone,
    ...(settings.hostTools ? { host_tools: settings.hostTools } : {}),
    ...(settings.toolSearch ? { tool_search: settings.toolSearch } : {}),
    ...(settings.skills ? { skills: true as const } : {}),
  };
}

/** The settings as the carried state holds them (fields at their defaults are left out where older runs left them out). */
export function carriedSettings(settings: DeploymentSettings): CarriedSettings {
  return {
    model: settings.model,
    search_attributes: settings.searchAttributes,
    ...(settings.unavailableTools.length > 0 ? { unavailable_tools: settings.unavailableTools } : {}),
    ...(settings.questionTimeoutSeconds !== null ? { question_timeout_seconds: settings.questionTimeoutSeconds } : {}),
    ...(settings.cronTimezone !== 'UTC' ? { cron_timezone: settings.cronTimezone } : {}),
    loop_limits: { min_interval_seconds: settings.loopLimits.minIntervalSeconds, max_age_seconds: settings.loopLimits.maxAgeSeconds },
    ...(settings.hostTools ? { host_tools: settings.hostTools } : {}),
    ...(settings.toolSearch ? { tool_search: settings.toolSearch } : {}),
    ...(settings.skills ? { skills: true as const } : {}),
  };
}

/**
 * Every tool the deployment can serve a session of `profile`: the profile's built-in ones (in registry order), then the
 * host tools of the session's catalogue (in its order), less those its environment lacks or withholds (an automation
 * run's administrator list). ToolSearch is left out: a session is given it where its own host tools are deferred (see
 * `withToolSearch`).
 */
export function servedTools(settings: DeploymentSettings, profile: ProfileName): string[] {
  const hostTools = settings.hostTools?.tools.map((tool) => tool.name) ?? [];
  const builtIn = toolNames.filter((name) => profileTools(profile).includes(name));
  return [...builtIn, ...hostTools].filter((name) => !settings.unavailableTools.includes(name) && isServedBuiltIn(name, settings));
}

function isServedBuiltIn(name: string, settings: DeploymentSettings): boolean {
  if (name === toolSearch.name) return false;
  return name !== skill.name || settings.skills;
}

/** The catalogue entry of a host tool the session may call, if `name` is one. */
export function findHostTool(settings: DeploymentSettings, name: string): HostToolEntry | undefined {
  return settings.hostTools?.tools.find((tool) => tool.name === name);
}
