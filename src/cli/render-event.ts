import type { TreeEvent } from '../client/events/tree-events.js';
import type { QuestionSet } from '../shared/tools/ask-user.js';
import type { Answers } from '../shared/answers.js';

/** The lines a person watching a session tree sees for one event; sub-agents' lines start with their title. */
export function renderTreeEvent({ event, session }: TreeEvent, options: { showUserMessages?: boolean } = {}): string[] {
  const who = session.depth === 0 ? '' : `${'  '.repeat(session.depth - 1)}[${session.title}] `;
  const line = (text: string) => `${who}${text}`;
  switch (event.type) {
    case 'message':
      if (event.role === 'user')
        return options.showUserMessages || session.depth > 0 ? [line(`user: ${abbreviate(event.content, 200)}`)] : [];
      return [line(`assistant: ${event.content}`)];
    case 'tool_call':
      return [
        line(`  → ${event.name}(${abbreviate(event.arguments, 80)})${event.mcp ? ` [MCP ${event.mcp.server}: ${event.mcp.tool}]` : ''}`),
      ];
    case 'tool_result':
      return [line(`  ${event.is_error ? '✗' : '✓'} ${event.name}: ${abbreviate(event.content, 160)}`)];
    case 'questions_asked':
      return [
        line(`  ? asks ${event.questions.length} question(s) (set ${event.question_set_id}):`),
        ...event.questions.map((q) =>
          line(`      ${q.question} [${q.options.map((o) => o.label).join(' | ')}${q.multiSelect ? ', several allowed' : ''}]`),
        ),
      ];
    case 'questions_answered':
      return [
        line(
          `  ✓ answered: ${event.answers.map((a) => `"${a.question}"="${[...a.selected, ...(a.other ? [a.other] : [])].join(', ')}"`).join(', ')}`,
        ),
      ];
    case 'questions_expired':
      return [line(`  · questions ${event.question_set_id} timed out unanswered`)];
    case 'sub_agent_started':
      return [line(`  ↳ sub-agent "${event.title}" started (${event.mode}, ${event.sub_session_id})`)];
    case 'sub_agent_finished':
      return [line(`  ↲ sub-agent "${event.title}" ${event.status}`)];
    case 'todos_updated':
      return [
        line(
          `  todos: ${event.todos.map((todo) => `${todo.status === 'completed' ? '[x]' : todo.status === 'in_progress' ? '[>]' : '[ ]'} ${todo.content}`).join('  ')}`,
        ),
      ];
    case 'plan_updated':
      return [
        line(
          event.revision === 0
            ? '  plan cleared'
            : `  plan revision ${event.revision} (${event.size} characters)${event.title ? `: ${event.title}` : ''}`,
        ),
      ];
    case 'notification':
      return [line(`  🔔 [${event.notification_type}] ${event.title}: ${event.message}${event.link ? ` (${event.link})` : ''}`)];
    case 'goal_updated':
      return [line(`  ◎ goal ${event.goal_id} ${event.status} (${event.completed_turns}/${event.max_turns} turns)`)];
    case 'loop_updated':
      return [
        line(
          `  ↻ loop ${event.loop_id} ${event.status}, ${event.firings} firing(s)${event.next_fire_at ? `, next at ${event.next_fire_at}` : ''}`,
        ),
      ];
    case 'task_updated':
      return [line(`  ▪ task ${event.task_id} ${event.status}: ${abbreviate(event.subject, 100)}`)];
    case 'status_changed':
      return event.to === 'running' || event.to === 'idle' ? [] : [line(`  · ${event.to}`)];
    case 'notice':
      return [line(`  · ${event.content}`)];
    case 'turn_interrupted':
      return [line(`  ⏹ turn ${event.turn} interrupted${interruptedWhat(event)}`)];
    case 'error':
      return [line(`  ! ${event.content}`)];
    case 'usage':
      // Per call, too many lines for a person reading along: `arbor show` prints the totals.
      return [];
  }
}

/** How to answer a question set without a terminal: the exact `arbor answer` command, with a first option filled in. */
export function howToAnswer(set: QuestionSet, rootId: string): string {
  return [
    `"${set.session_title}" asks (question set ${set.question_set_id}):`,
    ...set.questions.map(
      (q) =>
        `  [${q.header}] ${q.question}${q.multiSelect ? ' (one or more)' : ''}\n${q.options.map((o) => `      - ${o.label}: ${o.description}`).join('\n')}\n      - Other: your own words, as {"other": "..."}`,
    ),
    `Answer with: ${answerCommand(set, rootId)}`,
  ].join('\n');
}

function interruptedWhat(event: Extract<TreeEvent['event'], { type: 'turn_interrupted' }>): string {
  const parts = [
    ...(event.model_call_cancelled ? ['the model call'] : []),
    ...(event.tool_calls_cancelled.length > 0 ? [`tool call(s) ${event.tool_calls_cancelled.join(', ')}`] : []),
    ...(event.sub_agents_stopped > 0 ? [`${event.sub_agents_stopped} sub-agent(s)`] : []),
  ];
  const waited = event.tool_calls_waited_for ?? [];
  return (
    (parts.length > 0 ? `: cancelled ${parts.join(', ')}` : '') +
    (waited.length > 0 ? `${parts.length > 0 ? ';' : ':'} waited for tool call(s) ${waited.join(', ')}` : '')
  );
}

function abbreviate(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** The `arbor answer` command for a question set, a first option of each question filled in. */
export function answerCommand(set: QuestionSet, rootId: string): string {
  const example: Answers = {};
  for (const question of set.questions)
    example[question.question] = question.multiSelect ? [question.options[0]!.label] : question.options[0]!.label;
  const json = JSON.stringify(example).replace(/'/g, "'\\''");
  return `arbor answer ${rootId} --set ${set.question_set_id} --answers '${json}'`;
}
