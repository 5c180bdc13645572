import { html } from 'htm/preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Automation } from '../../src/shared/tools/automations.js';
import { getJson, postJson } from './api.js';

const recurrences = ['none', 'hourly', 'daily', 'weekly', 'monthly', 'yearly'];
const emptyForm = { title: '', prompt: '', timezone: 'UTC', start_local: '', recurrence: 'daily' };

const ownerFromHash = () => new URLSearchParams(window.location.hash.split('?')[1] ?? '').get('owner') ?? 'default';
const automationsPath = (owner: string, rest = '') => `/api/automations${rest}?owner=${encodeURIComponent(owner)}`;

/** An owner's automations (scheduled runs, each a new session): listed, created, paused and resumed, deleted. */
export function AutomationsPage() {
  const [owner, setOwner] = useState(ownerFromHash());
  const [automations, setAutomations] = useState<Automation[] | null>(null);
  const [form, setForm] = useState(emptyForm);
  const [note, setNote] = useState<{ error: boolean; text: string } | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      setAutomations(await getJson<Automation[]>(automationsPath(owner)));
    } catch (failure) {
      setNote({ error: true, text: (failure as Error).message });
    }
  }, [owner]);
  useEffect(() => {
    setAutomations(null);
    void load();
  }, [load]);

  const act = async (work: () => Promise<string>) => {
    try {
      setNote({ error: false, text: await work() });
      await load();
    } catch (refusal) {
      setNote({ error: true, text: (refusal as Error).message });
    }
  };
  const create = (event: Event) => {
    event.preventDefault();
    void act(async () => {
      const created = await postJson<Automation>(automationsPath(owner), form);
      setForm(emptyForm);
      return `Created “${created.title}”.`;
    });
  };
  const change = (id: string, action: 'pause' | 'resume' | 'delete', done: string) =>
    act(async () => {
      setDeleting(null);
      await postJson(automationsPath(owner, `/${encodeURIComponent(id)}/${action}`), {});
      return done;
    });
  const field = (key: keyof typeof emptyForm) => (event: Event) => setForm({ ...form, [key]: (event.target as HTMLInputElement).value });

  return html`<main class="automations">
    <p class="crumbs"><a href="#/">Sessions</a> › Automations</p>
    <h1>Automations</h1>
    <div class="filters">
      <label
        >Owner
        <input
          type="text"
          value=${owner}
          onChange=${(event: Event) => {
            const next = (event.target as HTMLInputElement).value.trim() || 'default';
            window.location.hash = `#/automations?owner=${encodeURIComponent(next)}`;
            setOwner(next);
          }}
      /></label>
    </div>
    ${note ? html`<p class=${note.error ? 'error' : 'note'} role=${note.error ? 'alert' : 'status'}>${note.text}</p>` : null}
    ${
      automations === null
        ? html`<p>Loading…</p>`
        : automations.length === 0
          ? html`<p class="none">${owner} has no automations.</p>`
          : html`<table>
              <thead>
                <tr>
                  <th>Title</th>
                  <th>Schedule</th>
                  <th>State</th>
                  <th>Next run</th>
                  <th>Actions</th>
                </tr>
              </thead>
              <tbody>
                ${automations.map(
                  (automation) =>
                    html`<tr class="automation" data-automation=${automation.automation_id}>
                      <td>
                        <strong>${automation.title}</strong>
                        <div class="prompt">${automation.prompt}</div>
                      </td>
                      <td>${automation.recurrence} from ${automation.start_local} (${automation.timezone})</td>
                      <td>
                        <span class=${`status ${automation.enabled ? 'status-running' : 'status-stopped'}`}
                          >${automation.enabled ? 'active' : 'paused'}</span
                        >
                      </td>
                      <td>${automation.next_run_at ? new Date(automation.next_run_at).toLocaleString() : '—'}</td>
                      <td class="row-actions">
                        ${
                          automation.enabled
                            ? html`<button
                                type="button"
                                onClick=${() => change(automation.automation_id, 'pause', `Paused “${automation.title}”.`)}
                              >
                                Pause
                              </button>`
                            : html`<button
                                type="button"
                                onClick=${() => change(automation.automation_id, 'resume', `Resumed “${automation.title}”.`)}
                              >
                                Resume
                              </button>`
                        }
                        ${
                          deleting === automation.automation_id
                            ? html`<span class="confirm" role="alertdialog" aria-label="Confirm delete">
                                Delete “${automation.title}”?
                                <button
                                  type="button"
                                  class="danger"
                                  onClick=${() => change(automation.automation_id, 'delete', `Deleted “${automation.title}”.`)}
                                >
                                  Yes, delete
                                </button>
                                <button type="button" onClick=${() => setDeleting(null)}>Cancel</button>
                              </span>`
                            : html`<button type="button" class="danger" onClick=${() => setDeleting(automation.automation_id)}>
                                Delete…
                              </button>`
                        }
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>`
    }
    <form class="automation-form" novalidate onSubmit=${create} aria-label="New automation">
      <h2>New automation for ${owner}</h2>
      <label>Title <input type="text" value=${form.title} onInput=${field('title')} /></label>
      <label>Prompt <textarea value=${form.prompt} onInput=${field('prompt')}></textarea></label>
      <label>Time zone <input type="text" value=${form.timezone} onInput=${field('timezone')} /></label>
      <label>First run (local) <input type="datetime-local" value=${form.start_local} onInput=${field('start_local')} /></label>
      <label
        >Repeats
        <select value=${form.recurrence} onChange=${field('recurrence')}>
          ${recurrences.map((value) => html`<option value=${value}>${value}</option>`)}
        </select></label
      >
      <button type="submit">Create</button>
    </form>
  </main>`;
}
