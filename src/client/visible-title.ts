export { neutralTitle } from '../shared/neutral-title.js';

/** ARBOR_NEUTRAL_TITLES=on: sessions (their sub-agents too) show the neutral title, not theirs, where the namespace's readers see it. */
export function neutralTitlesFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  return ['on', 'true', '1', 'yes'].includes(env.ARBOR_NEUTRAL_TITLES?.trim().toLowerCase() ?? '');
}
