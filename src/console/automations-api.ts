import { z } from 'zod';
import type { ArborClient } from '../client/arbor-client.js';
import { ApiError, parsed, type ApiRequest } from './api-input.js';

const ownerOf = (request: ApiRequest) => request.query.get('owner') || 'default';
// The SDK checks every field with the automation tools' own schema, so the page shows the SDK's words.
const createBody = z.object({}).passthrough();

/**
 * An owner's automations: `GET /api/automations?owner=`, `POST /api/automations?owner=` (create), and
 * `POST /api/automations/<id>/<pause|resume|delete>?owner=`.
 */
export async function automationsApi(client: ArborClient, request: ApiRequest): Promise<unknown> {
  const [, automationId, action] = request.path;
  let automations;
  try {
    automations = client.automations(ownerOf(request));
  } catch (error) {
    throw new ApiError(400, (error as Error).message);
  }
  if (automationId === undefined) {
    if (request.method === 'GET') return automations.list();
    return automations.create(parsed(createBody, await request.body()) as never);
  }
  if (request.method !== 'POST') throw new ApiError(404, 'No such API.');
  switch (action) {
    case 'pause':
      return automations.pause(automationId);
    case 'resume':
      return automations.resume(automationId);
    case 'delete':
      return automations.delete(automationId);
    default:
      throw new ApiError(404, 'No such API.');
  }
}
