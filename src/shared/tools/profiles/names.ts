import { z } from 'zod';
import { lazy } from '../../lazy.js';

/**
 * A session's tool profile: which seed system's tools (names, parameters, results) the model is shown. `all` is every
 * built-in tool Arbor had before profiles, in its three naming styles at once.
 */
export const profileNames = ['rtc', 'claurst', 'soai', 'all'] as const;
export type ProfileName = (typeof profileNames)[number];

/** The profile of a new session that names none. Sessions that began before profiles have `all`. */
export const defaultProfile: ProfileName = 'rtc';

export const profileSchema = lazy(() => z.enum(profileNames));

export function isProfileName(value: unknown): value is ProfileName {
  return typeof value === 'string' && (profileNames as readonly string[]).includes(value);
}
