import { html } from 'htm/preact';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { SessionPage } from './session-page.js';
import { SessionsPage } from './sessions-page.js';
import './style.css';

/** #/ lists sessions; #/session/<root>[/<member>] shows a tree with one member selected. */
function route(): { rootId: string; selectedId: string } | null {
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
  if (!current) return html`<${SessionsPage} />`;
  const select = (id: string) => {
    window.location.hash = `#/session/${encodeURIComponent(current.rootId)}/${encodeURIComponent(id)}`;
  };
  return html`<${SessionPage} rootId=${current.rootId} selectedId=${current.selectedId} onSelect=${select} />`;
}

render(html`<${App} />`, document.getElementById('app')!);
