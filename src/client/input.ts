import { z } from 'zod';
import { ArborClientError } from './errors.js';
import { ownerSchema } from '../shared/tools/memory.js';

/** Parses what an SDK caller passed, or throws ArborClientError saying what to fix. */
export function parseClientInput<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ArborClientError(z.prettifyError(parsed.error));
  return parsed.data;
}

export function checkOwner(owner: string): string {
  const parsed = ownerSchema().safeParse(owner);
  if (!parsed.success) throw new ArborClientError(`Invalid owner "${owner}": ${parsed.error.issues[0]?.message}.`);
  return owner;
}
