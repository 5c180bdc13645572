import { isCancellation, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { CallModelInput, ModelReply } from '../shared/model.js';
import type { SessionState } from './session-state.js';
import { dispatchToolCall } from './tools/dispatch.js';
import { offeredTools, planModeNote } from './tools/destructive-tools.js';
import { shareRoundBudget } from './tools/round-budget.js';
import { deferredToolsNote } from './deferred-tools.js';
import { describeModelFailure } from './model-failure.js';
import { budgetRefusal } from './tree-budget.js';
import type { SubAgents } from './sub-agents.js';
import type { StreamRing } from './stream-ring.js';
import type { SessionStatus, ToolCall } from '../shared/session.js';
import { traceToolCall, traceTurn } from './tracing/workflow-spans.js';
import { interruptedToolResult, type TurnInterruption } from './turn-interruption.js';
import { takeSteerMessages } from './steering.js';
import { withPinnedState } from './pinned-state.js';

const { callModel } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  // The activity heartbeats while it waits for the model, so a lost worker is noticed in seconds, not minutes.
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});

export interface TurnSettings {
  systemPrompt: string;
  toolNames: string[];
  maxToolRounds: number;
}

/** How far the model has been shown the transcript in this run: the next model call sends only what follows. */
export interface ModelCursor {
  sent: number;
  /** How the latest model call was fitted to the context window, if it was: the cue to summarize (see compaction.ts). */
  fitted?: ModelReply['context_fitted'];
}

export type TurnOutcome = 'answered' | 'round_limit' | 'model_failed' | 'budget_spent' | 'interrupted';

/** Runs one turn: model call, tool calls, repeated until the model answers without tools or a limit ends it. */
export interface TurnServices {
  subAgents: SubAgents;
  reportStatus: (status: SessionStatus) => void;
  toolRoundStarted: (calls: readonly ToolCall[]) => void;
  /** A host tool call runs without asking anyone: its activity is scheduled next (see StatusReporter). */
  callProceeds: () => void;
  /** Before each model call after a tool round (see StatusReporter). */
  modelCallStarts: () => void;
  /** The session's live stream (memory only): tool results join it as each call finishes. */
  stream: StreamRing;
  /** How an interrupt message ends this turn (see turn-interruption.ts). */
  interruption: TurnInterruption;
}

export function runTurn(state: SessionState, settings: TurnSettings, cursor: ModelCursor, services: TurnServices): Promise<TurnOutcome> {
  const attributes = {
    'gen_ai.conversation.id': state.identity.session_id,
    'gen_ai.request.model': state.settings.model,
    'arbor.turn': state.turn,
    'arbor.profile': state.profile,
  };
  const { interruption } = services;
  return traceTurn(attributes, () =>
    runRounds(state, settings, cursor, services).catch((error: unknown) => {
      // A wait of the turn outside a model call or tool round (a budget allowance) ended by the interrupt.
      if (isCancellation(error) && interruption.interrupted()) return 'interrupted' as const;
      throw error;
    }),
  );
}

async function runRounds(state: SessionState, settings: TurnSettings, cursor: ModelCursor, services: TurnServices): Promise<TurnOutcome> {
  const allowedTools = new Set(settings.toolNames);
  for (let round = 1; round <= settings.maxToolRounds; round++) {
    let reply: ModelReply;
    // Checked before every call: a call that would start past the budget is not made, and the turn ends saying why.
    const checked = budgetRefusal(state);
    const refusal = checked instanceof Promise ? await checked : checked;
    if (refusal !== null) {
      state.usage.budgetStop = refusal;
      state.append({ role: 'notice', content: refusal, turn: state.turn });
      return 'budget_spent';
    }
    state.usage.budgetStop = null;
    if (round > 1) {
      services.modelCallStarts();
      takeSteerMessages(state);
    }
    services.interruption.round = round;
    try {
      reply = await callModel.executeWithOptions({ summary: `turn ${state.turn} · round ${round} · ${state.settings.model}` }, [
        modelInput(state, settings, cursor, round),
      ]);
    } catch (error) {
      if (isCancellation(error) && services.interruption.interrupted()) {
        services.interruption.modelCallCancelled = true;
        return 'interrupted';
      }
      if (isCancellation(error)) throw error;
      const message = describeModelFailure(error);
      state.lastError = message;
      state.append({ role: 'error', content: message, turn: state.turn });
      return 'model_failed';
    }
    if (reply.usage) state.usage.record(reply.usage, 'model');
    cursor.fitted = reply.context_fitted;
    // The reply came in the activation the interrupt did: its text is kept, its tool calls are not made.
    const toolCalls = services.interruption.interrupted() ? [] : reply.tool_calls;
    if (toolCalls.length < reply.tool_calls.length) services.interruption.toolCallsDropped = reply.tool_calls.map((call) => call.name);
    state.append({
      role: 'assistant',
      content: reply.content ?? '',
      turn: state.turn,
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    });
    if (toolCalls.length === 0) return services.interruption.interrupted() ? 'interrupted' : 'answered';
    services.toolRoundStarted(toolCalls);

    // Independent calls run concurrently; each result is an event as soon as it is ready, and joins the transcript in call order.
    // Not async functions: the SDK captures a stack trace for every promise workflow code creates.
    const results = await Promise.all(
      toolCalls.map((call, index) => {
        const stepKey = `${state.identity.session_id}/turn-${state.turn}/round-${round}/call-${index}`;
        const dispatched = () => dispatchToolCall(call, allowedTools, { state, toolNames: settings.toolNames, stepKey, ...services });
        return traceToolCall(call, dispatched)
          .catch((error: unknown) => interruptedOutcome(error, call, services.interruption))
          .then((outcome) => {
            state.toolFinished(call, outcome);
            services.stream.push({
              type: 'tool_result',
              turn: state.turn,
              tool_call_id: call.id,
              name: call.name,
              is_error: outcome.is_error,
            });
            return outcome;
          });
      }),
    );
    const outcomes = shareRoundBudget(results);
    toolCalls.forEach((call, index) => {
      const outcome = outcomes[index]!;
      state.append(
        {
          role: 'tool',
          content: outcome.content,
          tool_call_id: call.id,
          name: call.name,
          turn: state.turn,
          ...(outcome.is_error ? { is_error: true } : {}),
        },
        { emit: false },
      );
    });
    if (services.interruption.interrupted()) return 'interrupted';
    if (state.endTurnRequested) {
      state.endTurnRequested = false;
      return 'answered';
    }
  }
  state.append({
    role: 'notice',
    content: `The turn was ended after ${settings.maxToolRounds} model calls (the per-turn tool round limit).`,
    turn: state.turn,
  });
  return 'round_limit';
}

/** A tool call the interrupt cancelled reads so; any other failure is the workflow's, as before. */
function interruptedOutcome(error: unknown, call: ToolCall, interruption: TurnInterruption): { content: string; is_error: boolean } {
  if (!isCancellation(error) || !interruption.interrupted()) throw error;
  interruption.toolCallsCancelled.push(call.name);
  return { content: interruptedToolResult, is_error: true };
}

function modelInput(state: SessionState, settings: TurnSettings, cursor: ModelCursor, round: number): CallModelInput {
  const start = cursor.sent;
  cursor.sent = state.transcript.entries.length;
  const hostTools = state.settings.hostTools;
  // The specs of host tools are not sent: the worker looks the session's catalogue up by its digest.
  const digest = hostTools && hostTools.tools.some((tool) => settings.toolNames.includes(tool.name)) ? hostTools.digest : undefined;
  return {
    session_id: state.identity.session_id,
    run_id: workflowInfo().runId,
    model: state.settings.model,
    turn: state.turn,
    round,
    system_prompt: settings.systemPrompt + planModeNote(state, settings.toolNames) + deferredToolsNote(state.deferredTools),
    tool_names: state.deferredTools.visible(offeredTools(state, settings.toolNames)),
    ...(state.profile !== 'all' ? { profile: state.profile } : {}),
    ...(digest !== undefined ? { host_tools_digest: digest } : {}),
    transcript_start: start,
    transcript_delta: state.transcript.entries.slice(start),
    ...withPinnedState(state),
  };
}
