import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  continueAsNew,
  isCancellation,
  makeContinueAsNewFunc,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import {
  answerQuestionsUpdate,
  eventsQuery,
  streamDeltasSignal,
  streamQuery,
  executePlanUpdate,
  hostToolCatalogueQuery,
  sessionToolsQuery,
  messageStateQuery,
  snapshotQuery,
  transcriptPageQuery,
  transcriptQuery,
  sendMessageUpdate,
  subAgentFinishedSignal,
  taskBoardUpdate,
  taskBoardWritesUpdate,
  treeQuestionsSignal,
  treeUsageSignal,
  budgetGrantSignal,
  drawFromRootSignal,
  setBudgetUpdate,
  userMessageSignal,
} from '../shared/messages.js';
import { budgetChangeSchema } from '../shared/usage.js';
import { answerUsageReport, drawFromRoot, reportFinalUsage, setBudget } from './tree-budget.js';
import { stopForBudget, takeBudget } from './session-budget.js';
import { usageAttributesWriter } from './usage-attributes.js';
import { applyBoardBatch, applyBoardRequest, checkBoardBatch, parseBoardRequest } from './board-requests.js';
import { acceptAnswers, checkAnswerRequest } from './answer-questions.js';
import { acceptMessage, checkMessage, receiveMessageSignal } from './send-message.js';
import { acceptExecutePlan, checkExecutePlan } from './execute-plan.js';
import { defaultWorkMode } from '../shared/work-modes.js';
import { toolProfiles } from '../shared/tools/profiles/index.js';
import { sessionProfile } from './session-profile.js';
import {
  closedStatuses,
  defaultMaxChildren,
  defaultMaxDepth,
  defaultMaxToolRounds,
  sessionWorkflowTypeV2,
  type SessionInput,
  type SessionResult,
} from '../shared/session.js';
import { invalidSessionInputType, sessionInputProblem } from '../shared/session-input.js';
import { SessionState } from './session-state.js';
import { noticeUnservedTools, takeCatalogue } from './host-tool-catalogue.js';
import { servedTools } from './deployment-settings.js';
import { withToolSearch } from './deferred-tools.js';
import { withholdAdministratorsTools } from './automation-run-tools.js';
import { SubAgents } from './sub-agents.js';
import { StreamRing } from './stream-ring.js';
import { runTurn, type ModelCursor, type TurnSettings } from './turn.js';
import { Compaction } from './compaction.js';
import { compactUpdate } from '../shared/compaction.js';
import { runSessionClock } from './session-clock.js';
import { inboxBatchChars } from './inbox.js';
import { statusReporter } from './session-status.js';
import { showCurrentDetails } from './current-details.js';
import { identityAttributes, startedWithIdentity, visibleIdentity } from './identity-attributes.js';
import { defaultTitle } from '../shared/titles.js';
import { defaultOwner } from '../shared/tools/memory.js';
import {
  askLaterChangesOnce,
  continuesAsNewAsNewestType,
  hasBuiltInChanges,
  hasChange,
  useBuiltInChanges,
  type SessionChange,
} from './session-changes.js';
import type { SessionWorkflow } from '../shared/workflow-types.js';
import { arrivedInThisTask, noteArrival } from './arrivals.js';
import { recordInterruption, TurnInterruption } from './turn-interruption.js';
import { forkPointReached, forkRunStarted } from './fork-probe.js';

const { prepareSession, describeHostTools } = proxyLocalActivities<Activities>({ startToCloseTimeout: '10 seconds' });

/**
 * A session: waits for user messages and answers each with a turn of model and tool calls. A root session stays
 * open between turns; a sub-agent (a session with a parent) completes once its work is done. New sessions start as
 * this type; it has every change of `session-changes.ts` built in, so it records no patch marker.
 */
export const arborSessionV3 = (async (input) => {
  useBuiltInChanges(3);
  return runSession(input);
}) satisfies SessionWorkflow;

/**
 * The type sessions started as until `arborSessionV3`: still registered so that its running sessions (and their
 * sub-agents, which take their parent's type) go on. It asks the changes made after it began with `patched()`, and
 * its runs continue as new as `arborSessionV2`: an `arborSessionV2` session stays of that type until it ends.
 */
export const arborSessionV2 = (async (input) => {
  useBuiltInChanges(2);
  return runSession(input);
}) satisfies SessionWorkflow;

/**
 * The type sessions started as until `arborSessionV2`: still registered so that its running sessions (and their
 * sub-agents, which take their parent's type) go on until they continue as new, which they do as `arborSessionV2`.
 * It writes `completed` and `stopped` as it closes, and asks the changes made after it began with `patched()`.
 */
export const arborSession = (async (input) => {
  useBuiltInChanges(1);
  return runSession(input);
}) satisfies SessionWorkflow;

/**
 * The type sessions started as until `arborSession`: still registered so that its running sessions (and their
 * sub-agents, which take their parent's type) go on until they continue as new, which they do as `arborSessionV2`,
 * asking Temporal with `patched()` which changes they have.
 */
export const sessionWorkflow = (async (input) => {
  return runSession(input);
}) satisfies SessionWorkflow;

async function runSession(input: SessionInput): Promise<SessionResult> {
  forkRunStarted(input);
  // Other clients (the Temporal CLI, the Web UI, other SDKs) send what they send: refused input ends the session at
  // once, as a failed workflow that says why, instead of a workflow task failing for ever.
  const problem = sessionInputProblem(input);
  if (problem !== null && hasChange('session-input-checked'))
    throw ApplicationFailure.create({ type: invalidSessionInputType, message: problem, nonRetryable: true });
  const sessionId = workflowInfo().workflowId;
  const ancestors = input.ancestor_session_ids ?? (input.parent_session_id ? [input.parent_session_id] : []);
  // Set while a turn begins: what the session records then is stamped with the turn's start (see the loop below).
  let stampedAt: number | undefined;
  const state = new SessionState(
    {
      session_id: sessionId,
      owner: input.owner ?? defaultOwner,
      title: input.title ?? defaultTitle(input.instruction),
      parent_session_id: input.parent_session_id ?? null,
      root_session_id: input.root_session_id ?? sessionId,
      ancestor_session_ids: ancestors,
      depth: ancestors.length,
      mode: input.mode ?? null,
    },
    { now: () => new Date(stampedAt ?? Date.now()), newId: uuid4 },
    input.carried,
  );
  // Sessions that end when done (automation runs) run unattended: nobody is there to approve a call.
  state.approvalPolicy = input.approval ?? (input.ends_when_done ? 'deny' : 'ask');
  state.neutralTitles = input.neutral_titles === true;
  // A run that continues a session is handed the mode the run before it was in (see continueAsNewNow).
  state.workMode = input.work_mode ?? defaultWorkMode;
  state.profile = sessionProfile(input);
  state.forkedFrom = input.forked_from ?? null;
  if (!input.carried) takeBudget(state, input);
  const interruption = new TurnInterruption(input.interruptible === true);

  setHandler(userMessageSignal, (message) => {
    noteArrival();
    receiveMessageSignal(state, message, interruption);
  });
  // Returns as soon as the message is queued: the server lets only 10 updates wait on a workflow at once.
  setHandler(sendMessageUpdate, (message) => (noteArrival(), acceptMessage(state, message, interruption)), {
    validator: (message) => checkMessage(state, message, interruption),
  });
  setHandler(executePlanUpdate, (request) => (noteArrival(), acceptExecutePlan(state, request)), {
    validator: (request) => checkExecutePlan(state, request),
  });
  setHandler(snapshotQuery, () => state.snapshot());
  setHandler(transcriptQuery, (range) => state.transcript.range(range));
  const runId = workflowInfo().runId;
  setHandler(transcriptPageQuery, (request) => state.transcript.page(request, runId));
  setHandler(messageStateQuery, (id) => state.messageState(id));
  setHandler(eventsQuery, (range) => state.events.page(range));
  // The live stream is not a message to the session: no noteArrival, and nothing it holds is carried or replayed into state.
  const stream = new StreamRing(sessionId, workflowInfo().runStartTime.getTime(), () => ({
    history_length: workflowInfo().historyLength,
    run_id: runId,
  }));
  setHandler(streamDeltasSignal, (batch) => stream.receive(batch));
  setHandler(streamQuery, (range) => stream.page(range));
  setHandler(hostToolCatalogueQuery, () => state.settings.hostTools);
  setHandler(answerQuestionsUpdate, (request) => (noteArrival(), acceptAnswers(state, request)), {
    validator: (request) => checkAnswerRequest(state, request),
  });
  setHandler(taskBoardUpdate, (request) => (noteArrival(), applyBoardRequest(state, request)), {
    validator: (request) => void parseBoardRequest(state, request),
  });
  setHandler(taskBoardWritesUpdate, (batch) => (noteArrival(), applyBoardBatch(state, batch)), {
    validator: (batch) => checkBoardBatch(state, batch),
  });
  setHandler(treeUsageSignal, (report) => answerUsageReport(state, report));
  setHandler(budgetGrantSignal, (grant) => state.usage.receiveGrant(grant));
  setHandler(drawFromRootSignal, () => drawFromRoot(state));
  setHandler(setBudgetUpdate, (change) => (noteArrival(), setBudget(state, change)), {
    validator: (change) => void budgetChangeSchema().parse(change),
  });
  setHandler(treeQuestionsSignal, (change) => {
    noteArrival();
    if (change && (change.kind === 'asked' || change.kind === 'settled')) state.applyTreeQuestions(change);
  });

  const status = statusReporter(state);
  const inboxBatch = inboxBatchChars();
  const reportStatus = status.report;
  const usageAttributes = usageAttributesWriter(state);

  const settings: TurnSettings = {
    systemPrompt: input.system_prompt ?? toolProfiles[state.profile].systemPrompt,
    toolNames: [],
    maxToolRounds: input.max_tool_rounds ?? defaultMaxToolRounds,
  };
  setHandler(sessionToolsQuery, () => ({
    tool_names: settings.toolNames,
    host_tools: state.settings.hostTools,
    ...state.deferredTools.snapshot(),
  }));
  // What the session waits for, on its page in the Web UI (no history event).
  showCurrentDetails(state, settings);
  // The session's tools: those of its profile it was given (default all of them), less those this deployment cannot serve.
  const chooseTools = () => servedTools(state.settings, state.profile).filter((name) => (input.tools ? input.tools.includes(name) : true));
  const cursor: ModelCursor = { sent: 0 };
  const compaction = new Compaction(state, cursor);
  setHandler(compactUpdate, () => (noteArrival(), compaction.run('user')), { validator: () => compaction.check() });
  const closesWhenDone = state.identity.parent_session_id !== null || input.ends_when_done === true;
  const subAgents = new SubAgents(
    state,
    {
      maxDepth: input.max_depth ?? defaultMaxDepth,
      maxChildren: input.max_children ?? defaultMaxChildren,
      historyLimit: input.history_limit,
      subAgentBudget: input.sub_agent_budget,
      neutralTitles: input.neutral_titles,
      interruptible: input.interruptible,
    },
    (child) => stream.push({ type: 'sub_agent_started', turn: state.turn, ...child }),
  );
  subAgents.startOutsideTurn = (start) => interruption.outsideTurn(start);
  subAgents.waitInTurn = (end) => interruption.untilInterrupted(end);
  // Registered once SubAgents exists: a sub-agent's report may be the first thing a new run receives.
  setHandler(subAgentFinishedSignal, (report) => {
    noteArrival();
    if (typeof report?.sub_session_id === 'string' && closedStatuses.includes(report.status)) subAgents.finish(report);
  });

  // Sub-agents started to outlive this run report to the next one; older ones keep the session in this run.
  const mayContinueAsNew = () => shouldContinueAsNew(input.history_limit) && subAgents.canContinueAsNew();
  // Between busy turns (never idle): asked only once the run is long, so a session that never gets there records no patch.
  const mayContinueBetweenTurns = (change: SessionChange) =>
    runIsLong(input.history_limit) && state.inboxFitsCarry() && hasChange(change) && subAgents.canContinueAsNew();
  const continueAsNewNow = async () => {
    await condition(allHandlersFinished);
    // A message that came in this workflow task is handled in this run first (see continueAsNewWaits). An arrival that
    // queued nothing (a message already handled, a sub-agent's report) leaves nothing to handle, so no reason to wait:
    // an idle session would otherwise stay in its long run until its next message.
    if (state.inbox.length > 0 && continueAsNewWaits(input.history_limit)) return;
    if (compaction.dueBeforeContinueAsNew()) await compaction.run('continue_as_new');
    const next: SessionInput = {
      ...input,
      instruction: undefined,
      title: state.identity.title,
      // The mode now (executePlan may have switched it); left out at the default, as sessions without Plan mode had it.
      work_mode: state.workMode === defaultWorkMode ? undefined : state.workMode,
      // Left out at `all`, which a run that names none has: sessions from before profiles continue as they began.
      ...(state.profile !== 'all' ? { profile: state.profile } : {}),
      carried: state.carry(),
    };
    if (continuesAsNewAsNewestType()) await makeContinueAsNewFunc<typeof arborSessionV2>({ workflowType: sessionWorkflowTypeV2 })(next);
    await continueAsNew<SessionWorkflow>(next);
  };

  try {
    if (!input.carried) {
      if (input.instruction?.trim()) state.enqueue({ content: input.instruction, source: 'user' });
      // A sub-agent of an arborSession is given its parent's environment and saves the local activity.
      const givenEnvironment = hasBuiltInChanges() ? input.environment : undefined;
      // Only the arborSession types time turns (sessionWorkflow shows every tool round), so only they ask; the later
      // changes are asked there with it, as one patch (askLaterChangesOnce).
      if (!givenEnvironment && state.inbox.length > 0 && hasBuiltInChanges()) {
        askLaterChangesOnce();
        if (hasChange('first-turn-clock-starts-with-session')) status.startFirstTurnClock();
      }
      const environment = givenEnvironment ?? (await prepareSession(input.model));
      state.applyEnvironment(environment);
      withholdAdministratorsTools(state, environment, input);
      if (state.settings.searchAttributes && !startedWithIdentity())
        upsertSearchAttributes(identityAttributes(visibleIdentity(state.identity, input.neutral_titles), state.status));
      noticeUnservedTools(state, input.tools);
    } else {
      askLaterChangesOnce();
      // The one point where a session's host tools change: a new run takes the catalogue the worker offers now.
      if (hasChange('host-tools-taken-at-continue-as-new')) takeCatalogue(state, await describeHostTools());
    }
    settings.toolNames = withToolSearch(state.settings, state.deferredTools, chooseTools());
    void runSessionClock(state);
    for (;;) {
      await condition(() => state.inbox.length > 0 && !compaction.running);
      compaction.turnRunning = true;
      // A first turn timed from the session's first activation stamps its status change and its messages with that
      // time too: the activation it begins in may be the one where a local activity resolved, whose time differs
      // between a live run and its replay, and a query answered after a replay would show other times.
      stampedAt = status.nextTurnStart();
      status.beginTurn(stampedAt);
      state.turn += 1;
      state.lastError = null;
      for (const message of state.takeInbox(inboxBatch)) {
        state.append({ id: message.id, role: 'user', content: message.content, turn: state.turn });
      }
      stampedAt = undefined;
      if (compaction.dueBeforeTurn()) await compaction.run('context');
      const outcome = await interruption.run(() =>
        runTurn(state, settings, cursor, {
          subAgents,
          reportStatus,
          toolRoundStarted: status.toolRoundStarted,
          callProceeds: status.callProceeds,
          modelCallStarts: status.modelCallStarts,
          stream,
          interruption,
        }),
      );
      compaction.turnRunning = false;
      if (outcome === 'interrupted') await recordInterruption(state, interruption, stream);
      stream.push({ type: 'turn_ended', turn: state.turn, outcome });
      if (outcome === 'budget_spent') stopForBudget(state);
      else if (outcome !== 'model_failed' && outcome !== 'interrupted') {
        // Active goals drive the next turn, unless a message (which always comes first) is already waiting.
        const continuation = state.goals.afterTurn(state.turn);
        if (continuation && state.inbox.length === 0) state.enqueue(continuation);
      }
      forkPointReached(state);
      if (state.inbox.length > 0) {
        // Messages keep coming (a flood, or a goal driving turn after turn), so the session is never idle: once the run
        // is long it continues as new between turns all the same, carrying what is queued (once that is small enough).
        if (mayContinueBetweenTurns(closesWhenDone ? 'sub-agents-continue-as-new' : 'continue-as-new-with-queued-messages'))
          await continueAsNewNow();
        continue;
      }
      if (closesWhenDone) {
        // A sub-agent is done when nothing is queued, none of its own sub-agents runs and none of its loops can fire.
        const busy = () => state.runningChildren().length > 0 || state.loops.live().length > 0 || state.crons.jobs.length > 0;
        if (busy()) {
          reportStatus('idle');
          // Kept alive by loops, cron jobs or its own sub-agents, it continues as new between turns like a root session.
          if (mayContinueBetweenTurns('sub-agents-continue-as-new')) await continueAsNewNow();
          await condition(() => state.inbox.length > 0 || !busy());
          if (state.inbox.length > 0) continue;
        }
        status.reportTurnEnd(outcome === 'model_failed' ? 'failed' : 'completed', usageAttributes());
        const finalUsage = reportFinalUsage(state);
        if (finalUsage) await finalUsage;
        await tellParent(state);
        return result(state);
      }
      status.reportTurnEnd('idle', usageAttributes());
      if (mayContinueAsNew()) await continueAsNewNow();
    }
  } catch (error) {
    // A stop is Temporal cancellation: record the status, then end as Canceled (not Completed, not Terminated).
    if (isCancellation(error)) {
      // Leaves first: every sub-agent of this session has stopped before this session ends.
      await subAgents.settle();
      reportStatus('stopped');
      await CancellationScope.nonCancellable(async () => {
        const finalUsage = reportFinalUsage(state);
        if (finalUsage) await finalUsage;
        await tellParent(state);
      });
    }
    throw error;
  }
}

/** Continue as new when Temporal suggests it, or (newer runs) before the history nears Temporal's warning threshold. */
const continueAsNewHistoryLength = 5_000;
const continueAsNewHistoryBytes = 10 * 1024 * 1024;

function shouldContinueAsNew(historyLimit = continueAsNewHistoryLength): boolean {
  if (workflowInfo().continueAsNewSuggested) return true;
  return runIsLong(historyLimit) && hasChange('continue-as-new-at-history-length');
}

/**
 * Whether continue-as-new waits for a later workflow task because a signal or update came in this one: the session
 * goes back to handle what came, and continues as new at the next point (a turn's end, or idle). A message that
 * reaches the server while the task that continues as new runs fails that task with `UnhandledCommand`, and Temporal
 * retries it with the message; that retry replays the whole run, so continuing as new in it again gave the next
 * message of a stream a far wider window. Never waits once the run has 1.5 times its limit of events (7,500 by
 * default, under Temporal's warning at 10,240) or its limit of bytes, so a flood cannot keep a run open.
 */
function continueAsNewWaits(historyLimit = continueAsNewHistoryLength): boolean {
  const info = workflowInfo();
  const overdue = info.historyLength >= 1.5 * historyLimit || info.historySize >= continueAsNewHistoryBytes;
  return !overdue && arrivedInThisTask() && hasChange('continue-as-new-waits-for-messages-of-its-task');
}

/** Whether Temporal suggests continue-as-new, or the run's history has passed the session's own limit. */
function runIsLong(historyLimit = continueAsNewHistoryLength): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || info.historyLength >= historyLimit || info.historySize >= continueAsNewHistoryBytes;
}

/**
 * A sub-agent tells its parent it has ended, reaching the parent's current run (the parent may have continued as new).
 * Not async, and undefined for a root: the SDK captures a stack trace for every promise workflow code creates.
 */
function tellParent(state: SessionState): Promise<void> | undefined {
  const parent = state.identity.parent_session_id;
  if (!parent || !hasChange('tell-parent-when-finished')) return undefined;
  return getExternalWorkflowHandle(parent)
    .signal(subAgentFinishedSignal, {
      sub_session_id: state.identity.session_id,
      status: state.status,
      final_message: finalMessageOf(state),
      ...failureOf(state),
    })
    .catch(() => {
      // The parent has ended; nobody waits for this report.
    });
}

function result(state: SessionState): SessionResult {
  return {
    session_id: state.identity.session_id,
    status: state.status,
    final_message: finalMessageOf(state),
    ...failureOf(state),
  };
}

/** A sub-agent the budget stopped says so to its parent (whose model reads it), instead of its last answer. */
function finalMessageOf(state: SessionState): string | null {
  return state.usage.budgetStop ?? state.transcript.finalMessage();
}

/** A failed session says why in its result and its report to its parent (newer runs), so a waiting parent can tell. */
function failureOf(state: SessionState): { error?: string } {
  if (state.status !== 'failed' || !state.lastError || !hasChange('sub-agent-reports-its-error')) return {};
  return { error: state.lastError.slice(0, maxReportedErrorChars) };
}

/** The most characters of a failed session's error its result and report carry. */
const maxReportedErrorChars = 2_000;
