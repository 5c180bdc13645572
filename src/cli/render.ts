import { renderUsage } from './render-usage.js';
import type { SessionSnapshot } from '../shared/session.js';
import type { Loop } from '../shared/tools/loops.js';
import { answerCommand } from './render-event.js';
import { renderMemberTree, statePhrase, type TreeMember } from './tree-members.js';

export interface SnapshotExtras {
  /** The tree below the session, each member as its own snapshot tells it: shown instead of the parent's record. */
  members?: TreeMember;
  /** A Temporal Web UI list view of the session's tree. */
  webUi?: string;
}

export function renderSnapshot(snapshot: SessionSnapshot, extras: SnapshotExtras = {}): string {
  // A workflow that has ended (given with its members) waits for no answer, however its last snapshot reads.
  const ended = extras.members?.ended;
  const lines = [
    `session   ${snapshot.session_id}`,
    `title     ${snapshot.title}`,
    `status    ${statePhrase(snapshot, ended)}`,
    ...(snapshot.work_mode === 'plan'
      ? [`mode      Plan: destructive tools do not run until \`arbor execute-plan ${snapshot.session_id}\``]
      : []),
    `model     ${snapshot.model}`,
    ...(snapshot.profile ? [`profile   ${snapshot.profile}`] : []),
    `root      ${snapshot.root_session_id}${snapshot.parent_session_id ? `\nparent    ${snapshot.parent_session_id}` : ''}`,
    `turns     ${snapshot.turn}${snapshot.turn_started_at ? ` (the latest began ${snapshot.turn_started_at})` : ''}, messages ${snapshot.message_count}${snapshot.queued_messages ? `, ${snapshot.queued_messages} queued` : ''}`,
    `updated   ${snapshot.updated_at}`,
    ...renderUsage(snapshot.usage),
  ];
  if (snapshot.todos.length > 0) {
    lines.push('todos');
    for (const todo of snapshot.todos) {
      const mark = todo.status === 'completed' ? '[x]' : todo.status === 'in_progress' ? '[>]' : '[ ]';
      const active = todo.status === 'in_progress' && todo.active_form ? ` (${todo.active_form})` : '';
      lines.push(`  ${mark} ${todo.content}${active}`);
    }
  }
  if (snapshot.plan)
    lines.push(`plan      ${snapshot.plan.title ?? '(untitled)'}, revision ${snapshot.plan.revision}, ${snapshot.plan.size} characters`);
  if (snapshot.waiting && !ended)
    lines.push(`waiting   until ${snapshot.waiting.until}${snapshot.waiting.reason ? ` (${snapshot.waiting.reason})` : ''}`);
  for (const goal of snapshot.goals) {
    lines.push(`goal      ${goal.goal_id} [${goal.status}] ${goal.completed_turns}/${goal.max_turns} turns: ${goal.condition}`);
  }
  if (snapshot.loops.length > 0) lines.push(...renderLoops(snapshot.loops));
  if (snapshot.tasks.length > 0) {
    lines.push('task board');
    for (const task of snapshot.tasks) {
      const blocked = task.blockedBy.length > 0 ? `, blocked by ${task.blockedBy.join(', ')}` : '';
      lines.push(`  ${task.id.padStart(3)} [${task.status}] ${task.subject}${task.owner ? ` (${task.owner})` : ''}${blocked}`);
    }
  }
  if (extras.members && extras.members.children.length > 0) {
    lines.push('sub-agents');
    for (const [index, child] of extras.members.children.entries())
      lines.push(...renderMemberTree(child, '  ', index === extras.members.children.length - 1, false));
  } else if (snapshot.children.length > 0) {
    lines.push('sub-agents (as this session last heard from them)');
    for (const child of snapshot.children) lines.push(`  ${child.sub_session_id}  ${child.title}  [${child.status}, ${child.mode}]`);
  }
  for (const set of ended ? [] : snapshot.pending_questions) {
    lines.push(`waiting for answers (set ${set.question_set_id}, asked by "${set.session_title}" ${set.session_id}):`);
    for (const question of set.questions) {
      lines.push(
        `  [${question.header}] ${question.question} ${question.options.map((option) => option.label).join(' | ')} | Other${question.multiSelect ? ' (several allowed)' : ''}`,
      );
    }
    lines.push(`  answer with: ${answerCommand(set, snapshot.root_session_id)}`);
  }
  if (snapshot.last_error) lines.push(`error     ${snapshot.last_error}`);
  if (extras.webUi) lines.push(`web ui    ${extras.webUi}`);
  if (snapshot.last_message) {
    lines.push(`last message (${snapshot.last_message.role}, ${snapshot.last_message.created_at}):`);
    lines.push(indent(snapshot.last_message.content));
  }
  return lines.join('\n');
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

export function renderLoops(loops: Loop[]): string[] {
  if (loops.length === 0) return ['no loops'];
  return [
    'loops',
    ...loops.map((loop) => {
      const next = loop.next_fire_at ? `, next ${loop.next_fire_at}` : '';
      const reason = loop.reason ? ` (${loop.reason})` : '';
      return `  ${loop.loop_id} [${loop.status}${reason}] every ${loop.interval_seconds} s, ${loop.firings}/${loop.max_turns} firings${next}: ${loop.prompt}`;
    }),
  ];
}
