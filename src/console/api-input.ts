import type { z } from 'zod';

/** A refusal the page shows as it is: the SDK's own words (the CLI prints the same). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface ApiRequest {
  method: string;
  path: string[];
  query: URLSearchParams;
  body: () => Promise<unknown>;
}

export function parsed<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new ApiError(400, result.error.issues.map((issue) => issue.message).join('; '));
  return result.data;
}
