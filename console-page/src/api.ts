/** The console server's JSON API, with the CSRF secret the server put in this page's HTML. */
const csrf = document.querySelector<HTMLMetaElement>('meta[name="arbor-csrf"]')?.content ?? '';
export const webUiBase = document.querySelector<HTMLMetaElement>('meta[name="arbor-web-ui"]')?.content ?? '';
export const namespace = document.querySelector<HTMLMetaElement>('meta[name="arbor-namespace"]')?.content ?? 'default';

export class ApiRefusal extends Error {}

async function answer<T>(response: Response): Promise<T> {
  const body = (await response.json().catch(() => ({ error: response.statusText }))) as T & { error?: string };
  if (!response.ok) throw new ApiRefusal(body.error ?? response.statusText);
  return body;
}

export async function getJson<T>(path: string): Promise<T> {
  return answer<T>(await fetch(path, { headers: { Accept: 'application/json' }, credentials: 'same-origin' }));
}

export async function postJson<T>(path: string, body: unknown): Promise<T> {
  return answer<T>(
    await fetch(path, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-Arbor-Console-Csrf': csrf },
      body: JSON.stringify(body),
    }),
  );
}

export function sessionPath(id: string, part: string): string {
  return `/api/sessions/${encodeURIComponent(id)}/${part}`;
}

export function workflowLink(sessionId: string): string | undefined {
  if (!webUiBase) return undefined;
  return `${webUiBase}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(sessionId)}`;
}
