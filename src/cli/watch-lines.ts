import type { TreeEvent } from '../client/events/tree-events.js';
import { renderTreeEvent } from './render-event.js';

/**
 * Text lines of `arbor watch`: each starts with the event's time and number, and every line of a sub-agent's event,
 * continuation lines too, carries its tag. Two sub-agents with one title get distinct tags (`[Title]`, `[Title #2]`).
 */
export function createWatchLines() {
  const tags = new Map<string, string>();
  const idsByTitle = new Map<string, string[]>();

  const tagOf = (session: TreeEvent['session']): string => {
    const known = tags.get(session.id);
    if (known) return known;
    const ids = idsByTitle.get(session.title) ?? [];
    ids.push(session.id);
    idsByTitle.set(session.title, ids);
    const tag = ids.length === 1 ? session.title : `${session.title} #${ids.length}`;
    tags.set(session.id, tag);
    return tag;
  };

  return (treeEvent: TreeEvent): string[] => {
    const { event, session } = treeEvent;
    const tagged = session.depth === 0 ? session : { ...session, title: tagOf(session) };
    const who = session.depth === 0 ? '' : `${'  '.repeat(session.depth - 1)}[${tagged.title}] `;
    const prefix = `${clock(event.at)} ${String(event.seq).padStart(4)} `;
    return renderTreeEvent({ event, session: tagged }, { showUserMessages: true }).flatMap((rendered) =>
      rendered.split('\n').map((text, index) => (index === 0 ? `${prefix}${text}` : `${prefix}${who}  ${text}`)),
    );
  };
}

/** An ISO time as `HH:MM:SS` in local time. */
function clock(iso: string): string {
  const date = new Date(iso);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** The backlog of a tree in time order (events of one instant: shallower sessions first, then by number). */
export function inTimeOrder(events: TreeEvent[]): TreeEvent[] {
  return [...events].sort(
    (a, b) => Date.parse(a.event.at) - Date.parse(b.event.at) || a.session.depth - b.session.depth || a.event.seq - b.event.seq,
  );
}
