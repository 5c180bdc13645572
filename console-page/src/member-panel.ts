import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import type { SessionSnapshot, TranscriptEntry } from '../../src/shared/session.js';
import { postJson, sessionPath, workflowLink } from './api.js';
import { entryLabel } from './entry-label.js';
import type { Writing } from './live-text.js';
import { markdownHtml } from './markdown.js';
import { countBelow, type Member } from './tree-view.js';
import { usageText } from './usage.js';

export interface MemberView {
  snapshot: SessionSnapshot;
  transcript: TranscriptEntry[];
  plan: { title: string | null; content: string } | null;
}

/** A member's conversation and state. Model text is shown as text; only the plan is Markdown, sanitised. */
export function MemberPanel(props: {
  member: Member;
  view: MemberView | null;
  /** What its model is writing now (shown as text as it comes), or null. */
  writing: Writing | null;
  rootTasks: SessionSnapshot['tasks'];
  onChanged: () => void;
}) {
  const { member, view } = props;
  const link = workflowLink(member.session_id);
  return html`<section class="member-panel" aria-label=${`Session ${member.title}`}>
    <header>
      <h2>${member.title}</h2>
      <span class=${`status status-${member.status}`}>${member.status}</span>
      <code class="id">${member.session_id}</code>
      <span class="member-usage">${usageText(view?.snapshot.usage?.session)}</span>
      ${link ? html`<a class="web-ui" href=${link} target="_blank" rel="noopener noreferrer">Temporal Web UI</a>` : null}
    </header>
    <${Actions} member=${member} onChanged=${props.onChanged} />
    ${
      view === null
        ? html`<p>Loading…</p>`
        : html`<div class="panes">
            <section class="conversation">
              <h3>Conversation</h3>
              <ol>
                ${view.transcript.map(
                  (entry) =>
                    html`<li class=${`entry entry-${entry.role}${entry.is_error ? ' entry-failed' : ''}`}>
                      <span class="role">${entryLabel(entry)}</span>
                      ${entry.content ? html`<div class="content">${entry.content}</div>` : null}
                      ${(entry.tool_calls ?? []).map((call) => html`<div class="tool-call">calls <code>${call.name}</code> <code>${call.arguments}</code></div>`)}
                    </li>`,
                )}
                ${
                  props.writing && (props.writing.text || props.writing.tools.length > 0)
                    ? html`<li class="entry entry-assistant entry-writing" aria-live="polite" aria-label="Being written">
                        <span class="role">assistant · writing…</span>
                        <div class="content">${props.writing.text}</div>
                        ${props.writing.tools.map((name) => html`<div class="tool-call">calls <code>${name}</code>…</div>`)}
                      </li>`
                    : null
                }
              </ol>
            </section>
            <aside class="state">
              <${Todos} snapshot=${view.snapshot} />
              <section class="plan">
                <h3>Plan${view.plan?.title ? `: ${view.plan.title}` : ''}</h3>
                ${view.plan ? html`<div class="markdown" dangerouslySetInnerHTML=${{ __html: markdownHtml(view.plan.content) }}></div>` : html`<p class="none">No plan.</p>`}
              </section>
              <${List}
                title="Task board"
                items=${props.rootTasks.map((task) => `${task.status} · ${task.subject}${task.owner ? ` (${task.owner})` : ''}`)}
              />
              <${List}
                title="Goals"
                items=${view.snapshot.goals.map((goal) => `${goal.status} · ${goal.condition} (${goal.completed_turns}/${goal.max_turns} turns)`)}
              />
              <${List}
                title="Loops"
                items=${view.snapshot.loops.map((loop) => `${loop.status} · every ${loop.interval_seconds} s: ${loop.prompt}`)}
              />
              <${List}
                title="Cron jobs"
                items=${view.snapshot.cron_jobs.map((job) => `${job.human_schedule} (${job.timezone}): ${job.prompt}`)}
              />
            </aside>
          </div>`
    }
  </section>`;
}

function Todos(props: { snapshot: SessionSnapshot }) {
  return html`<section class="todos">
    <h3>Todo list</h3>
    ${
      props.snapshot.todos.length === 0
        ? html`<p class="none">No todos.</p>`
        : html`<ul>
            ${props.snapshot.todos.map((todo) => html`<li class=${`todo todo-${todo.status}`}>${todo.status === 'completed' ? '☑' : '☐'} ${todo.content}</li>`)}
          </ul>`
    }
  </section>`;
}

function List(props: { title: string; items: string[] }) {
  return html`<section>
    <h3>${props.title}</h3>
    ${
      props.items.length === 0
        ? html`<p class="none">None.</p>`
        : html`<ul>
            ${props.items.map((item) => html`<li>${item}</li>`)}
          </ul>`
    }
  </section>`;
}

function Actions(props: { member: Member; onChanged: () => void }) {
  const { member } = props;
  const [message, setMessage] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [note, setNote] = useState<{ error: boolean; text: string } | null>(null);
  const ended = ['completed', 'stopped', 'failed'].includes(member.status);
  const act = async (work: () => Promise<string>) => {
    try {
      setNote({ error: false, text: await work() });
      props.onChanged();
    } catch (refusal) {
      setNote({ error: true, text: (refusal as Error).message });
    }
  };
  const send = (event: Event) => {
    event.preventDefault();
    void act(async () => {
      await postJson(sessionPath(member.session_id, 'messages'), { content: message });
      setMessage('');
      return 'Message sent.';
    });
  };
  const stop = () =>
    act(async () => {
      setConfirming(false);
      const stopped = await postJson<{ total_stopped: number }>(sessionPath(member.session_id, 'stop'), {});
      return `Stopped ${stopped.total_stopped} session(s).`;
    });
  const below = countBelow(member);
  return html`<div class="actions">
    <form class="send" onSubmit=${send}>
      <textarea
        aria-label="Message"
        placeholder=${ended ? 'This session has ended.' : 'Send a message…'}
        value=${message}
        disabled=${ended}
        onInput=${(event: Event) => setMessage((event.target as HTMLTextAreaElement).value)}
      ></textarea>
      <button type="submit" disabled=${ended}>Send</button>
    </form>
    ${
      confirming
        ? html`<div class="confirm" role="alertdialog" aria-label="Confirm stop">
            <span>Stop “${member.title}”${below > 0 ? ` and its ${below} sub-agent(s)` : ''}? This cannot be undone.</span>
            <button type="button" class="danger" onClick=${stop}>Yes, stop</button>
            <button type="button" onClick=${() => setConfirming(false)}>Cancel</button>
          </div>`
        : html`<button type="button" class="danger" disabled=${ended} onClick=${() => setConfirming(true)}>
            Stop this session and its sub-agents…
          </button>`
    }
    ${note ? html`<p class=${note.error ? 'error' : 'note'} role="status">${note.text}</p>` : null}
  </div>`;
}
