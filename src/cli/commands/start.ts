import { inFlagTerms, sessionTerms } from '../flag-terms.js';
import { Command } from 'commander';
import { withClient } from '../with-client.js';
import { createOutput } from '../output.js';
import { collectList, isModulePath, toolModulePaths } from '../tool-modules.js';
import { UsageError } from '../usage-error.js';
import {
  approvalPolicy,
  workMode,
  toolProfile,
  connectionSettingsFrom,
  nonEmptyText,
  ownerId,
  positiveInteger,
  positiveAmount,
  withConnectionFlags,
  type ConnectionFlags,
} from '../options.js';
import type { ApprovalPolicy } from '../../shared/approvals.js';
import type { WorkMode } from '../../shared/work-modes.js';
import type { ProfileName } from '../../shared/tools/profiles/names.js';

export interface SessionFlags extends ConnectionFlags {
  title?: string;
  model?: string;
  maxToolRounds?: number;
  maxTokens?: number;
  maxCostUsd?: number;
  owner?: string;
  approval?: ApprovalPolicy;
  workMode?: WorkMode;
  profile?: ProfileName;
  json?: boolean;
  /** Tool names for the session, and (run, chat) modules of tool definitions for the in-process worker. */
  tools?: string[];
}

export function withSessionFlags(command: Command): Command {
  return withConnectionFlags(command)
    .option('--title <title>', 'session title (default: the start of the instruction)')
    .option('--model <name>', "model for this session (default: the worker's ARBOR_MODEL)")
    .option('--max-tool-rounds <n>', 'model calls allowed in one turn', positiveInteger('--max-tool-rounds'))
    .option('--max-tokens <n>', "tokens the session's whole tree may use (checked before each model call)", positiveInteger('--max-tokens'))
    .option(
      '--max-cost-usd <usd>',
      "US dollars the session's whole tree may spend, by the worker's price table",
      positiveAmount('--max-cost-usd'),
    )
    .option('--owner <id>', 'whose memories the session uses (default "default")', ownerId)
    .option('--approval <policy>', 'host tool calls that need approval: ask (default), allow or deny', approvalPolicy)
    .option('--work-mode <mode>', 'plan: destructive tools do not run until arbor execute-plan; execute (default)', workMode)
    .option('--profile <name>', 'whose tools the model is shown: rtc (default), claurst, soai, or all (every built-in tool)', toolProfile)
    .option(
      '--tools <list>',
      'tools the session may use (built-in and host tools, comma-separated; default all); run and chat also take modules of tool definitions (a path) for their in-process worker',
      collectList,
    )
    .option('--json', 'print one JSON object');
}

export function sessionOptionsFrom(instruction: string, flags: SessionFlags) {
  return {
    instruction,
    ...(flags.title ? { title: flags.title } : {}),
    ...(flags.model ? { model: flags.model } : {}),
    ...(flags.maxToolRounds ? { max_tool_rounds: flags.maxToolRounds } : {}),
    ...(flags.maxTokens ? { max_tokens: flags.maxTokens } : {}),
    ...(flags.maxCostUsd ? { max_cost_usd: flags.maxCostUsd } : {}),
    ...(flags.owner ? { owner: flags.owner } : {}),
    ...(flags.approval ? { approval: flags.approval } : {}),
    ...(flags.workMode ? { work_mode: flags.workMode } : {}),
    ...(flags.profile ? { profile: flags.profile } : {}),
    ...(sessionToolNames(flags).length > 0 ? { tools: sessionToolNames(flags) } : {}),
  };
}

function sessionToolNames(flags: SessionFlags): string[] {
  return (flags.tools ?? []).filter((item) => !isModulePath(item));
}

/** The modules of tool definitions `run` and `chat` give their in-process worker: those of --tools, then ARBOR_TOOLS. */
export function toolModulesFrom(flags: SessionFlags): string[] {
  return toolModulePaths((flags.tools ?? []).filter(isModulePath));
}

export const startCommand = withSessionFlags(
  new Command('start')
    .description('start a root session and print its id without waiting')
    .argument('<instruction>', 'what the agent should do', nonEmptyText('The instruction')),
).action(async (instruction: string, flags: SessionFlags) => {
  const output = createOutput(Boolean(flags.json));
  const modules = (flags.tools ?? []).filter(isModulePath);
  if (modules.length > 0) {
    throw new UsageError(
      `arbor start runs no worker, so it cannot serve the tools of ${modules.join(', ')}: give them to the worker (arbor worker --tools, or ARBOR_TOOLS).`,
    );
  }
  await withClient(connectionSettingsFrom(flags), async (client) => {
    const session = await inFlagTerms(sessionTerms, () => client.startSession(sessionOptionsFrom(instruction, flags)));
    output.result({ session_id: session.id }, session.id);
  });
});
