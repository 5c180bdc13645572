import type { HostToolCatalogue } from '../shared/host-tools.js';
import { isToolName } from '../shared/tools/registry.js';
import { profileTools } from '../shared/tools/profiles/index.js';
import type { SessionState } from './session-state.js';

/**
 * A session asked for tools (its `tools` option, or its parent's subAgent call) that neither Arbor nor its catalogue
 * has: says so in the transcript, once, as the session begins, rather than leaving them out silently.
 */
export function noticeUnservedTools(state: SessionState, requested: readonly string[] | undefined): void {
  const catalogue = new Set(state.settings.hostTools?.tools.map((tool) => tool.name));
  const unserved = (requested ?? []).filter((name) => !isToolName(name) && !catalogue.has(name));
  const outsideProfile = (requested ?? []).filter((name) => isToolName(name) && !profileTools(state.profile).includes(name));
  if (outsideProfile.length > 0) {
    state.append({
      role: 'notice',
      content: `The session's ${state.profile} profile has no tool(s) ${outsideProfile.join(', ')}: the session goes on without them.`,
      turn: state.turn,
    });
  }
  if (unserved.length === 0) return;
  state.append({
    role: 'notice',
    content: `No worker serves the tool(s) ${unserved.join(', ')}: the session goes on without them. A host tool is offered by the worker that defines it (createArborWorker({ tools }), arbor worker --tools).`,
    turn: state.turn,
  });
}

/**
 * Takes the catalogue the worker offers now, as a new run begins after continue-as-new: the one replay-safe point
 * where a session's host tools change (see `host-tools-taken-at-continue-as-new`). A change shows as a notice.
 */
export function takeCatalogue(state: SessionState, latest: HostToolCatalogue | null): void {
  const current = state.settings.hostTools;
  if ((latest?.digest ?? null) === (current?.digest ?? null)) return;
  state.settings = { ...state.settings, hostTools: latest };
  const before = new Map(current?.tools.map((tool) => [tool.name, JSON.stringify(tool)]));
  const after = new Map(latest?.tools.map((tool) => [tool.name, JSON.stringify(tool)]));
  const added = [...after.keys()].filter((name) => !before.has(name));
  const removed = [...before.keys()].filter((name) => !after.has(name));
  const changed = [...after.keys()].filter((name) => before.has(name) && before.get(name) !== after.get(name));
  const parts = [
    added.length > 0 ? `added ${added.join(', ')}` : '',
    removed.length > 0 ? `removed ${removed.join(', ')}` : '',
    changed.length > 0 ? `changed ${changed.join(', ')}` : '',
  ].filter(Boolean);
  state.append({
    role: 'notice',
    content: `The host tools changed as the session continued as new: ${parts.join('; ') || 'their options changed'}.`,
    turn: state.turn,
  });
}
