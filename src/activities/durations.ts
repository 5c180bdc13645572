import { timeZoneProblem } from '../shared/time-zones.js';

const units: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/**
 * A duration in seconds from an environment variable: seconds, or a number with s, m, h or d ("90", "15m", "3d").
 * Unset, or "none" where allowed, gives undefined; anything else is an error that names the variable.
 */
export function durationFromEnv(
  name: string,
  env: NodeJS.ProcessEnv = process.env,
  options: { allowNone?: boolean } = {},
): number | undefined {
  const raw = env[name]?.trim();
  if (!raw || (options.allowNone && raw.toLowerCase() === 'none')) return undefined;
  const match = /^(\d+(?:\.\d+)?)\s*([smhd]?)$/i.exec(raw);
  const seconds = match ? Math.round(Number(match[1]) * units[(match[2] || 's').toLowerCase()]!) : NaN;
  if (!Number.isFinite(seconds) || seconds < 1) {
    const none = options.allowNone ? ', or "none"' : '';
    throw new Error(`${name}="${raw}" is not a duration: use seconds or a number with s, m, h or d (for example 3d)${none}.`);
  }
  return seconds;
}

/** How long askUser waits for the user (ARBOR_QUESTION_TIMEOUT); unset or "none" waits until answered or stopped. */
export const questionTimeoutFromEnv = (env: NodeJS.ProcessEnv = process.env) =>
  durationFromEnv('ARBOR_QUESTION_TIMEOUT', env, { allowNone: true });

/** The shortest loop interval (ARBOR_LOOP_MIN_INTERVAL) and the longest a loop lives (ARBOR_LOOP_MAX_AGE). */
export function loopLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): { min_interval_seconds?: number; max_age_seconds?: number } {
  const min = durationFromEnv('ARBOR_LOOP_MIN_INTERVAL', env);
  const max = durationFromEnv('ARBOR_LOOP_MAX_AGE', env);
  return { ...(min !== undefined ? { min_interval_seconds: min } : {}), ...(max !== undefined ? { max_age_seconds: max } : {}) };
}

/** The IANA time zone cron expressions are read in (ARBOR_CRON_TIMEZONE), checked so a typo fails at worker start. */
export function cronTimezoneFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const zone = env['ARBOR_CRON_TIMEZONE']?.trim();
  if (!zone) return undefined;
  const problem = timeZoneProblem(zone);
  if (problem) throw new Error(`ARBOR_CRON_TIMEZONE: ${problem}`);
  return zone;
}
