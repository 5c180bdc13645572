import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { usageText } from './usage.js';

export interface Member {
  session_id: string;
  title: string;
  status: string;
  mode: 'async' | 'sync' | null;
  waiting_for: string | null;
  usage: { total_tokens: number; cost_usd: number; unpriced_calls: number; calls: number } | null;
  children: Member[];
}

/** A session tree: every member with its status and what it waits for; a member with sub-agents folds. */
export function TreeView(props: { root: Member; selected: string; onSelect: (id: string) => void }) {
  const [collapsed, setCollapsed] = useState<Set<string>>(new Set());
  const toggle = (id: string) => {
    const next = new Set(collapsed);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setCollapsed(next);
  };
  const node = (member: Member): unknown => {
    const folded = collapsed.has(member.session_id);
    return html`<li class="member" data-member=${member.session_id} data-status=${member.status}>
      <div class=${`member-row${member.session_id === props.selected ? ' selected' : ''}`}>
        ${
          member.children.length > 0
            ? html`<button
                type="button"
                class="fold"
                aria-expanded=${!folded}
                aria-label=${`${folded ? 'Expand' : 'Collapse'} ${member.title}`}
                onClick=${() => toggle(member.session_id)}
              >
                ${folded ? '▸' : '▾'}
              </button>`
            : html`<span class="fold-space"></span>`
        }
        <button type="button" class="member-title" onClick=${() => props.onSelect(member.session_id)}>${member.title}</button>
        <span class=${`status status-${member.status}`}>${member.status}</span>
        ${member.usage && member.usage.calls > 0 ? html`<span class="spent">${usageText(member.usage)}</span>` : null}
        ${member.waiting_for ? html`<span class="waiting">waits for ${member.waiting_for}</span>` : null}
      </div>
      ${
        member.children.length > 0 && !folded
          ? html`<ul>
              ${member.children.map(node)}
            </ul>`
          : null
      }
    </li>`;
  };
  return html`<ul class="tree">
    ${node(props.root)}
  </ul>`;
}

export function findMember(root: Member, id: string): Member | undefined {
  if (root.session_id === id) return root;
  for (const child of root.children) {
    const found = findMember(child, id);
    if (found) return found;
  }
  return undefined;
}

export function countBelow(member: Member): number {
  return member.children.reduce((sum, child) => sum + 1 + countBelow(child), 0);
}
