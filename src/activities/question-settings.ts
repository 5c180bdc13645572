const units: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/**
 * How long askUser waits for the user, from ARBOR_QUESTION_TIMEOUT: seconds, or a number with s, m, h or d
 * ("90", "15m", "3d"). Unset or "none" means no limit: a question waits until it is answered or the session stops.
 */
export function questionTimeoutFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env['ARBOR_QUESTION_TIMEOUT']?.trim();
  if (!raw || raw.toLowerCase() === 'none') return undefined;
  const match = /^(\d+(?:\.\d+)?)\s*([smhd]?)$/i.exec(raw);
  const seconds = match ? Math.round(Number(match[1]) * units[(match[2] || 's').toLowerCase()]!) : NaN;
  if (!Number.isFinite(seconds) || seconds < 1) {
    throw new Error(`ARBOR_QUESTION_TIMEOUT="${raw}" is not a duration: use seconds or a number with s, m, h or d (for example 3d), or "none".`);
  }
  return seconds;
}
