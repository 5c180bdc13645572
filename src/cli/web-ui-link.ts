import type { ConnectionSettings } from '../client/connection.js';
import { parentSessionIdKey, rootSessionIdKey } from '../shared/search-attributes.js';
import { sessionWorkflowTypes } from '../client/session-id.js';

/**
 * Where the Temporal Web UI of this server is: ARBOR_UI_URL when set; Temporal Cloud's for a Cloud address; for a
 * server on this machine, the dev server's (the frontend port + 1000, as `temporal server start-dev` and `arbor dev`
 * place it). Undefined when it cannot be known.
 */
export function webUiBase(settings: ConnectionSettings, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = env.ARBOR_UI_URL?.trim();
  if (given) return given.replace(/\/+$/, '');
  const match = /^\[?([^\]]*?)\]?:(\d+)$/.exec(settings.address.trim());
  if (!match) return undefined;
  const [, host = '', port] = match;
  if (host.endsWith('.tmprl.cloud')) return 'https://cloud.temporal.io';
  if (['localhost', '127.0.0.1', '::1', ''].includes(host) && Number(port) + 1000 <= 65535)
    return `http://${host.includes(':') ? `[${host}]` : host || 'localhost'}:${Number(port) + 1000}`;
  return undefined;
}

/** A Web UI list view of every session of the tree of `rootId`. */
export function treeViewLink(base: string, namespace: string, rootId: string): string {
  const query = `${rootSessionIdKey.name}="${rootId}"`;
  return `${base}/namespaces/${encodeURIComponent(namespace)}/workflows?query=${encodeURIComponent(query)}`;
}

/** A Web UI list view of the root sessions (each tree's top). */
export function rootSessionsLink(base: string, namespace: string): string {
  const types = sessionWorkflowTypes.map((type) => `"${type}"`).join(', ');
  const query = `${parentSessionIdKey.name} IS NULL AND WorkflowType IN (${types})`;
  return `${base}/namespaces/${encodeURIComponent(namespace)}/workflows?query=${encodeURIComponent(query)}`;
}
