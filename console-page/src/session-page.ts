import { html } from 'htm/preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { SessionSnapshot, TranscriptEntry } from '../../src/shared/session.js';
import type { QuestionSet } from '../../src/shared/tools/ask-user.js';
import { getJson } from './api.js';
import { describeEvent, watchTree, type LiveEvent } from './live.js';
import { nextWriting, type Writing } from './live-text.js';
import { MemberPanel, type MemberView } from './member-panel.js';
import { QuestionSetForm } from './questions.js';
import { findMember, TreeView, type Member } from './tree-view.js';
import { UsagePanel } from './usage.js';

interface TreeViewAnswer {
  tree: Member;
  root: SessionSnapshot;
  questions: QuestionSet[];
  member: { snapshot: SessionSnapshot; transcript: TranscriptEntry[]; plan: MemberView['plan'] };
}

const shownEvents = 300;

/** A session tree: its members, the selected member, the tree's waiting questions, and its events as they come. */
export function SessionPage(props: { rootId: string; selectedId: string; onSelect: (id: string) => void }) {
  const { rootId, selectedId } = props;
  const [tree, setTree] = useState<Member | null>(null);
  const [rootSnapshot, setRootSnapshot] = useState<SessionSnapshot | null>(null);
  const [questions, setQuestions] = useState<QuestionSet[]>([]);
  const [view, setView] = useState<MemberView | null>(null);
  const [events, setEvents] = useState<LiveEvent[]>([]);
  const [writing, setWriting] = useState<Record<string, Writing | null>>({});
  const [connected, setConnected] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const timer = useRef<number | undefined>(undefined);
  const latest = useRef(0);

  const refresh = useCallback(async () => {
    // Only the newest refresh may show its answers: an older one (of the member selected before) is dropped.
    const ticket = ++latest.current;
    try {
      // One request: the server answers from what it keeps of the tree, asking only members that changed.
      const view = await getJson<TreeViewAnswer>(`/api/trees/${encodeURIComponent(rootId)}/view?member=${encodeURIComponent(selectedId)}`);
      if (ticket !== latest.current) return;
      setTree(view.tree);
      setRootSnapshot(view.root);
      setQuestions(view.questions);
      setView({ snapshot: view.member.snapshot, transcript: view.member.transcript, plan: view.member.plan });
      setError(null);
    } catch (failure) {
      if (ticket === latest.current) setError((failure as Error).message);
    }
  }, [rootId, selectedId]);
  const refreshNow = useRef(refresh);
  refreshNow.current = refresh;

  // Many events come in bursts: one refresh for each burst.
  const refreshSoon = useCallback(() => {
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => void refreshNow.current(), 150);
  }, []);

  useEffect(() => {
    setView(null);
    void refresh();
    // Events bring most changes; this catches a member that could not answer at the last refresh (cheap: the
    // server answers from what it keeps).
    const timer = window.setInterval(() => void refreshNow.current(), 10_000);
    return () => window.clearInterval(timer);
  }, [refresh]);

  useEffect(() => {
    setEvents([]);
    setWriting({});
    const watch = watchTree(rootId, {
      onEvent: (event) => {
        setEvents((current) => [...current.slice(-(shownEvents - 1)), event]);
        refreshSoon();
      },
      onStream: ({ item, session }) => {
        setWriting((current) => ({ ...current, [session.id]: nextWriting(current[session.id] ?? null, item) }));
        if (item.type === 'turn_ended' || item.type === 'tool_result') refreshSoon();
      },
      onReset: () => {
        setNotice('Some live items were too old for the server to keep; the page read everything again.');
        refreshSoon();
      },
      onError: (sessionId, message) => setError(`Reading session ${sessionId} failed: ${message}`),
      onConnection: (open) => {
        setConnected(open);
        if (open) refreshSoon();
      },
    });
    return () => watch.close();
  }, [rootId, refreshSoon]);

  const member = tree ? findMember(tree, selectedId) : undefined;
  return html`<main class="session-page">
    <p class="crumbs">
      <a href="#/">Sessions</a> › ${tree?.title ?? rootId}
      <span class=${`live ${connected ? 'live-on' : 'live-off'}`}>${connected ? 'live' : 'reconnecting…'}</span>
    </p>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null} ${notice ? html`<p class="note" role="status">${notice}</p>` : null}
    <div class="layout">
      <nav class="tree-pane" aria-label="Session tree">
        <h2>Tree</h2>
        ${tree ? html`<${TreeView} root=${tree} selected=${selectedId} onSelect=${props.onSelect} />` : html`<p>Loading…</p>`}
      </nav>
      <div class="main-pane">
        ${rootSnapshot ? html`<${UsagePanel} root=${rootSnapshot} onChanged=${refreshSoon} />` : null}
        <section class="questions" aria-label="Waiting questions">
          <h2>Waiting for you (${questions.length})</h2>
          ${
            questions.length === 0
              ? html`<p class="none">No questions or approvals wait.</p>`
              : questions.map(
                  (set) => html`<${QuestionSetForm} key=${set.question_set_id} rootId=${rootId} set=${set} onAnswered=${refreshSoon} />`,
                )
          }
        </section>
        ${
          member
            ? html`<${MemberPanel}
                member=${member}
                view=${view}
                writing=${writing[member.session_id] ?? null}
                rootTasks=${rootSnapshot?.tasks ?? []}
                onChanged=${refreshSoon}
              />`
            : tree
              ? html`<p>This session is not in the tree.</p>`
              : null
        }
        <section class="events" aria-label="Event stream">
          <h2>Events</h2>
          <ol>
            ${events.map(
              ({ event, session }) =>
                html`<li key=${`${session.id}:${event.seq}`} class="event" data-seq=${event.seq} data-session=${session.id}>
                  <time>${new Date(event.at).toLocaleTimeString()}</time> <strong>${session.title}</strong>
                  <span class="type">${event.type}</span>
                  <span class="text">${describeEvent(event)}</span>
                </li>`,
            )}
          </ol>
        </section>
      </div>
    </div>
  </main>`;
}
