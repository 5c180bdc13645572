import { CancellationScope, condition, setCurrentDetails } from '@temporalio/workflow';
import { closedStatuses, type SessionStatus } from '../shared/session.js';
import type { SessionState } from './session-state.js';

/** What the current details know besides the session's state: the turn's limit on model calls. */
export interface DetailsSettings {
  maxToolRounds: number;
}

const headlines: Record<SessionStatus, string> = {
  running: 'Running',
  idle: 'Idle, waiting for a message',
  waiting_for_user: 'Waiting for an answer',
  completed: 'Completed',
  stopped: 'Stopped',
  failed: 'Failed',
};

/** At most this many items of one kind (questions, sub-agents, loops) are listed; the rest are counted. */
const listed = 5;
const textChars = 200;

/**
 * What the session is doing and what it waits for, as Markdown for the Temporal Web UI's "current details": the
 * status, then the questions it waits on (with their text), the time a wait ends, running sub-agents, the next loop
 * and cron firings, active goals with their turn budgets, and queued messages. Derived from the state only, so it
 * reads the same live and on replay; it names times as instants (never "in 5 minutes"), so it changes only when the
 * state does.
 */
export function currentDetails(state: SessionState, settings: DetailsSettings): string {
  const lines: string[] = [];
  const headline = `**${headlines[state.status]}**`;
  if (state.status === 'running') lines.push(`${headline}: ${turnProgress(state, settings)}`);
  else if (state.status === 'failed' && state.lastError) lines.push(`${headline}: ${shorten(state.lastError)}`);
  else lines.push(headline);
  if (closedStatuses.includes(state.status)) return lines.join('\n');

  const own = state.questions.filter((set) => !set.answers);
  for (const set of own.slice(0, listed)) {
    const questions = set.questions.map((question) => shorten(question.question)).join(' / ');
    lines.push(`- ${set.approval ? 'Approval asked' : 'Question asked'}: ${questions} (set ${set.question_set_id})`);
  }
  for (const set of state.treeQuestions.slice(0, Math.max(0, listed - own.length))) {
    const questions = set.questions.map((question) => shorten(question.question)).join(' / ');
    lines.push(`- Sub-agent "${shorten(set.session_title)}" asks: ${questions} (set ${set.question_set_id})`);
  }
  const questionSets = own.length + state.treeQuestions.length;
  if (questionSets > listed) lines.push(`- and ${questionSets - listed} more question sets`);

  if (state.waiting) {
    lines.push(`- Waiting until ${state.waiting.until}${state.waiting.reason ? `: ${shorten(state.waiting.reason)}` : ''}`);
  }
  const running = state.runningChildren();
  if (running.length > 0) {
    const names = running.slice(0, listed).map((child) => `"${shorten(child.title)}" (${child.mode})`);
    const more = running.length > listed ? ` and ${running.length - listed} more` : '';
    lines.push(`- ${running.length} sub-agent${running.length === 1 ? '' : 's'} running: ${names.join(', ')}${more}`);
  }
  const loops = state.loops.loops.filter((loop) => loop.status === 'active' && loop.next_fire_at);
  for (const loop of loops.slice(0, listed)) {
    lines.push(
      `- Loop ${loop.loop_id} fires next at ${loop.next_fire_at} (firing ${loop.firings + 1} of at most ${loop.max_turns}): ${shorten(loop.prompt)}`,
    );
  }
  for (const job of state.crons.jobs.slice(0, listed)) {
    lines.push(`- Cron ${job.id} fires next at ${job.next_fire_at} (${job.human_schedule}): ${shorten(job.prompt)}`);
  }
  for (const goal of state.goals.goals.filter((candidate) => candidate.status === 'active').slice(0, listed)) {
    lines.push(`- Goal ${goal.goal_id}, ${goal.completed_turns} of at most ${goal.max_turns} turns used: ${shorten(goal.condition)}`);
  }
  if (state.inbox.length > 0) lines.push(`- ${state.inbox.length} message${state.inbox.length === 1 ? '' : 's'} queued`);
  return lines.join('\n');
}

/** The running turn: which model call of how many, and the tools it is calling. */
function turnProgress(state: SessionState, settings: DetailsSettings): string {
  const entries = state.transcript.entries;
  let rounds = 0;
  for (let index = entries.length - 1; index >= 0 && entries[index]!.turn === state.turn; index--) {
    if (entries[index]!.role === 'assistant') rounds += 1;
  }
  const last = entries.at(-1);
  const calls = last?.role === 'assistant' && last.turn === state.turn ? (last.tool_calls ?? []) : [];
  const position = `turn ${state.turn}, model call ${Math.max(rounds, 1)} of at most ${settings.maxToolRounds}`;
  if (calls.length === 0) return `${position}, asking the model`;
  const names = [...new Set(calls.map((call) => call.name))];
  return `${position}, calling ${names.slice(0, listed).join(', ')}${names.length > listed ? ' and more' : ''}`;
}

function shorten(text: string | undefined): string {
  const flat = String(text ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length <= textChars ? flat : `${flat.slice(0, textChars - 1)}…`;
}

/**
 * Keeps the workflow's current details (shown on its page in the Web UI, read with the `__temporal_workflow_metadata`
 * query) equal to `currentDetails` of the state. Set in memory only: no command, no history event, so replay and
 * earlier histories are unaffected. Call it once, at the start of the run.
 */
export function showCurrentDetails(state: SessionState, settings: DetailsSettings): void {
  // Details are a courtesy: state they cannot describe (carried by an older run, say) must never fail a workflow task.
  const describe = () => {
    try {
      return currentDetails(state, settings);
    } catch {
      return `**${headlines[state.status] ?? state.status}**`;
    }
  };
  if (describedWhenRead(describe)) return;
  let shown = describe();
  setCurrentDetails(shown);
  // Not cancellable: a stopped session still says so as it ends.
  void CancellationScope.nonCancellable(async () => {
    for (;;) {
      let next = shown;
      await condition(() => (next = describe()) !== shown);
      shown = next;
      setCurrentDetails(shown);
    }
  });
}

/**
 * Makes the SDK's `currentDetails` (what `setCurrentDetails` sets, and only the metadata query reads) a getter on the
 * workflow's activator, so the details are described when asked instead of after every activation: a session nobody
 * looks at (most sub-agents) never describes itself, and creates no promise for it. Falls back to the watch loop if
 * the SDK keeps its activator elsewhere.
 */
function describedWhenRead(describe: () => string): boolean {
  const activator = (globalThis as { __TEMPORAL_ACTIVATOR__?: { currentDetails?: unknown } }).__TEMPORAL_ACTIVATOR__;
  if (!activator || typeof Object.getOwnPropertyDescriptor(activator, 'currentDetails')?.value !== 'string') return false;
  Object.defineProperty(activator, 'currentDetails', { get: describe, set: () => {}, configurable: true, enumerable: true });
  return true;
}
