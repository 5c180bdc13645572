import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { legacySessionWorkflowType, previousSessionWorkflowType, sessionWorkflowType, sessionWorkflowTypeV2 } from '../shared/session.js';
import { ArborClientError } from './errors.js';
import { listingClient } from './access/listing-client.js';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The start of a UUID: what `resolveSessionId` looks up as a prefix. */
const uuidPrefixPattern = /^[0-9a-f][0-9a-f-]{0,35}$/i;
const maxIdLength = 1000;
const maxCandidates = 10;

/** Every workflow type an Arbor session has run as: any workflow of these types is a session, whatever its id. */
export const sessionWorkflowTypes: readonly string[] = [
  sessionWorkflowType,
  sessionWorkflowTypeV2,
  previousSessionWorkflowType,
  legacySessionWorkflowType,
];

/**
 * Returns the id if it can be a session id, else throws an error that says so. Any workflow id can: Arbor's own
 * sessions have UUIDs (automation runs `<automation id>:<time>`), and a session another client started has the id it
 * was given.
 */
export function checkSessionId(sessionId: string): string {
  if (typeof sessionId !== 'string' || !sessionId || sessionId.trim() !== sessionId || sessionId.length > maxIdLength) {
    throw new ArborClientError(
      `${JSON.stringify(sessionId)} is not a session id: a session id is the id of its workflow, such as 1b4e28ba-2fa1-11d2-883f-0016d3cca427.`,
    );
  }
  return sessionId;
}

/**
 * The id of the session that `idOrPrefix` names: a workflow id whose workflow is an Arbor session, or the start of
 * exactly one session's UUID. A prefix several sessions start with is refused with the candidates; a workflow that
 * is not a session, with its type.
 */
export async function resolveSessionId(client: Client, idOrPrefix: string): Promise<string> {
  const id = checkSessionId(idOrPrefix);
  try {
    // Through the listing client: its memo may be encrypted with a key this client lacks, and only the type is read.
    const { type } = await listingClient(client).workflow.getHandle(id).describe();
    if (sessionWorkflowTypes.includes(type)) return id;
    throw new ArborClientError(`Workflow ${id} is not an Arbor session: its type is ${type}, not ${sessionWorkflowType}.`);
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
  if (uuidPattern.test(id) || !uuidPrefixPattern.test(id)) throw new ArborClientError(`No session with id ${id}.`);
  const candidates = new Set<string>();
  const query =
    `WorkflowId STARTS_WITH '${id.toLowerCase()}' AND ` + `WorkflowType IN (${sessionWorkflowTypes.map((type) => `'${type}'`).join(', ')})`;
  try {
    for await (const execution of listingClient(client).workflow.list({ query })) {
      candidates.add(execution.workflowId);
      if (candidates.size > maxCandidates) break;
    }
  } catch {
    // A server whose visibility cannot search (the time-skipping test server) knows no prefixes.
  }
  const [only] = candidates;
  if (candidates.size === 1 && only) return only;
  if (candidates.size === 0) throw new ArborClientError(`No session with id ${id}, and no session id starts with it.`);
  const listed = [...candidates].slice(0, maxCandidates);
  throw new ArborClientError(
    `"${id}" is the start of ${candidates.size > maxCandidates ? `more than ${maxCandidates}` : candidates.size} session ids: ` +
      `${listed.join(', ')}${candidates.size > maxCandidates ? ', …' : ''}. Give more of the id.`,
  );
}
