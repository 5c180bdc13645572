import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api.js';
import { usd } from './usage.js';

interface SessionSummary {
  session_id: string;
  title: string;
  status: string;
  owner: string | null;
  last_activity_at: string;
  /** Its memo is encrypted with a key the console's process lacks: the owner is unknown. */
  encrypted?: true;
  total_tokens?: number;
  cost_usd?: number;
}

const statuses = ['', 'running', 'idle', 'waiting_for_user', 'completed', 'stopped', 'failed', 'terminated', 'timed_out'];

/** The root sessions, as Temporal's visibility lists them (so it works on a cluster), filtered and searched there. */
export function SessionsPage() {
  const [filters, setFilters] = useState({ status: '', owner: '', title: '' });
  const [sessions, setSessions] = useState<SessionSummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const query = new URLSearchParams(filters);
    let current = true;
    const load = () =>
      getJson<SessionSummary[]>(`/api/sessions?${query}`)
        .then((list) => current && (setSessions(list), setError(null)))
        .catch((failure: Error) => current && setError(failure.message));
    void load();
    const timer = setInterval(load, 5_000);
    return () => {
      current = false;
      clearInterval(timer);
    };
  }, [filters.status, filters.owner, filters.title]);

  const set = (key: keyof typeof filters) => (event: Event) => setFilters({ ...filters, [key]: (event.target as HTMLInputElement).value });
  return html`<main class="sessions">
    <h1>Sessions <a class="nav" href="#/automations">Automations →</a></h1>
    <div class="filters">
      <label>Search titles <input type="search" value=${filters.title} onInput=${set('title')} /></label>
      <label>Owner <input type="text" value=${filters.owner} onInput=${set('owner')} /></label>
      <label
        >Status
        <select value=${filters.status} onChange=${set('status')}>
          ${statuses.map((status) => html`<option value=${status}>${status || 'any'}</option>`)}
        </select></label
      >
    </div>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    ${
      sessions === null
        ? html`<p>Loading…</p>`
        : sessions.length === 0
          ? html`<p>No sessions match.</p>`
          : html`<table>
              <thead>
                <tr>
                  <th>Title</th>
                  <th>Status</th>
                  <th>Owner</th>
                  <th>Last activity</th>
                  <th class="number">Tokens</th>
                  <th class="number">Cost</th>
                </tr>
              </thead>
              <tbody>
                ${sessions.map(
                  (session) =>
                    html`<tr data-session=${session.session_id}>
                      <td><a href=${`#/session/${encodeURIComponent(session.session_id)}`}>${session.title}</a></td>
                      <td><span class=${`status status-${session.status}`}>${session.status}</span></td>
                      <td>${session.owner ?? (session.encrypted ? '(encrypted)' : '—')}</td>
                      <td><time datetime=${session.last_activity_at}>${new Date(session.last_activity_at).toLocaleString()}</time></td>
                      <td class="number tokens">${session.total_tokens?.toLocaleString('en-US') ?? '—'}</td>
                      <td class="number cost">
                        ${session.cost_usd !== undefined ? usd(session.cost_usd) : session.total_tokens ? 'unknown' : '—'}
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>`
    }
  </main>`;
}
