import { InvalidArgumentError, type Command } from 'commander';
import { loadConnectionSettings, type ConnectionSettings } from '../client/connection.js';
import { ownerSchema } from '../shared/tools/memory.js';
import { collectList } from './tool-modules.js';
import { approvalPolicies, type ApprovalPolicy } from '../shared/approvals.js';
import { workModes, type WorkMode } from '../shared/work-modes.js';
import { profileNames, type ProfileName } from '../shared/tools/profiles/names.js';
import { timeZoneProblem } from '../shared/time-zones.js';
import { embeddedDatabase, liveLock } from './dev-lock.js';

export interface ConnectionFlags {
  address?: string;
  namespace?: string;
  taskQueue?: string;
}

/** --address, --namespace, --task-queue: override TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and ARBOR_TASK_QUEUE. */
export function withConnectionFlags(command: Command): Command {
  return command
    .option('--address <host:port>', 'Temporal frontend address (default: TEMPORAL_ADDRESS or localhost:7233)')
    .option('--namespace <name>', 'Temporal namespace (default: TEMPORAL_NAMESPACE or "default")')
    .option('--task-queue <name>', 'task queue of Arbor workers (default: ARBOR_TASK_QUEUE or "arbor")');
}

export interface ToolModulesFlag {
  tools?: string[];
}

/** --tools: modules of tool definitions (defineHostTool, defineRemoteTool) the worker serves, besides ARBOR_TOOLS. */
export function withToolModulesFlag(command: Command): Command {
  return command.option(
    '--tools <modules>',
    'modules whose exports are tool definitions, comma-separated or repeated (also: ARBOR_TOOLS)',
    collectList,
  );
}

/**
 * The connection settings of a command: its flags, then Temporal's environment and profiles. With no server named,
 * a server `arbor dev` (or `run`, `chat`) runs on this folder's state file is the one used, wherever it listens.
 */
export function connectionSettingsFrom(flags: ConnectionFlags): ConnectionSettings {
  const overrides = {
    ...(flags.address ? { address: flags.address } : {}),
    ...(flags.namespace ? { namespace: flags.namespace } : {}),
    ...(flags.taskQueue ? { taskQueue: flags.taskQueue } : {}),
  };
  const settings = loadConnectionSettings(process.env, overrides);
  if (settings.addressGiven) return settings;
  const running = liveLock(embeddedDatabase);
  if (!running) return settings;
  return {
    ...settings,
    address: running.address,
    connectionOptions: { ...settings.connectionOptions, address: running.address },
  };
}

export function positiveInteger(name: string) {
  return (value: string): number => {
    const number = Number(value);
    if (!Number.isInteger(number) || number <= 0)
      throw new InvalidArgumentError(`${name} must be a positive whole number, got "${value}".`);
    return number;
  };
}

/** A positive amount (dollars): `0.5`, `12`. */
export function positiveAmount(name: string) {
  return (value: string): number => {
    const number = Number(value);
    if (value.trim() === '' || !Number.isFinite(number) || number <= 0)
      throw new InvalidArgumentError(`${name} must be a positive number, got "${value}".`);
    return number;
  };
}

export function port(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > 65535)
    throw new InvalidArgumentError(`expected a port between 1 and 65535, got "${value}".`);
  return number;
}

export function nonEmptyText(what: string) {
  return (value: string): string => {
    if (!value.trim()) throw new InvalidArgumentError(`${what} is empty.`);
    return value;
  };
}

export function ownerId(value: string): string {
  const parsed = ownerSchema().safeParse(value);
  if (!parsed.success) throw new InvalidArgumentError(`--owner "${value}": ${parsed.error.issues[0]?.message}.`);
  return value;
}

export function approvalPolicy(value: string): ApprovalPolicy {
  const policy = approvalPolicies.find((candidate) => candidate === value);
  if (!policy) throw new InvalidArgumentError(`--approval "${value}": the policy is one of ${approvalPolicies.join(', ')}.`);
  return policy;
}

export function workMode(value: string): WorkMode {
  const mode = workModes.find((candidate) => candidate === value);
  if (!mode) throw new InvalidArgumentError(`--work-mode "${value}": the mode is one of ${workModes.join(', ')}.`);
  return mode;
}

export function toolProfile(value: string): ProfileName {
  const profile = profileNames.find((candidate) => candidate === value);
  if (!profile) throw new InvalidArgumentError(`--profile "${value}": the profile is one of ${profileNames.join(', ')}.`);
  return profile;
}

/** --timezone: refused before anything connects, by the same rule as the schedule it goes into. */
export function timeZone(value: string): string {
  const problem = timeZoneProblem(value.trim());
  if (problem) throw new InvalidArgumentError(problem);
  return value.trim();
}
