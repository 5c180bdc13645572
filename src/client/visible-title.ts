/** What a session's static summary and ArborTitle search attribute hold when titles are kept out of Temporal's visible fields. */
export const neutralTitle = 'Arbor session';

/** ARBOR_NEUTRAL_TITLES=on: root sessions show the neutral title, not theirs, where the namespace's readers see it. */
export function neutralTitlesFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  return ['on', 'true', '1', 'yes'].includes(env.ARBOR_NEUTRAL_TITLES?.trim().toLowerCase() ?? '');
}
