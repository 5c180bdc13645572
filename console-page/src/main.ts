import { html } from 'htm/preact';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { AutomationsPage } from './automations-page.js';
import { SessionPage } from './session-page.js';
import { SessionsPage } from './sessions-page.js';
import './style.css';

/** #/ lists sessions; #/session/<root>[/<member>] shows a tree with one member selected; #/automations an owner's automations. */
function route(): { rootId: string; selectedId: string } | 'automations' | null {
  if (window.location.hash.startsWith('#/automations')) return 'automations';
  const match = /^#\/session\/([^/]+)(?:\/([^/]+))?$/.exec(window.location.hash);
  if (!match) return null;
  const rootId = decodeURIComponent(match[1]!);
  return { rootId, selectedId: match[2] ? decodeURIComponent(match[2]) : rootId };
}

function App() {
  const [current, setCurrent] = useState(route());
  useEffect(() => {
    const onChange = () => setCurrent(route());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  if (current === 'automations') return html`<${AutomationsPage} />`;
  if (!current) return html`<${SessionsPage} />`;
  const { rootId } = current;
  const select = (id: string) => {
    window.location.hash = `#/session/${encodeURIComponent(rootId)}/${encodeURIComponent(id)}`;
  };
  return html`<${SessionPage} rootId=${current.rootId} selectedId=${current.selectedId} onSelect=${select} />`;
}

render(html`<${App} />`, document.getElementById('app')!);
