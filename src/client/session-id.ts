import { automationIdOfRun } from '../shared/tools/automations.js';
import { ArborClientError } from './errors.js';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Returns the id if it is a session id (a UUID, or an automation run id), else throws an error that says so. */
export function checkSessionId(sessionId: string): string {
  if (!uuidPattern.test(sessionId) && !automationIdOfRun(sessionId)) {
    throw new ArborClientError(`"${sessionId}" is not a session id: expected a UUID such as 1b4e28ba-2fa1-11d2-883f-0016d3cca427.`);
  }
  return sessionId;
}
