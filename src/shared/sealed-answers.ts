import type { ResolvedAnswer } from './answers.js';

/** How a sealed secret answer starts (the token's format: src/client/secret-seal.ts). */
export const sealedPrefix = 'arbor-sealed:v1:';

/**
 * Why answers to a set with secret questions cannot be taken, or undefined: each secret question is answered with a
 * sealed token as its own words, so nothing of it arrives, nor is kept, in clear.
 */
export function unsealedSecretProblem(
  secretQuestions: readonly string[] | undefined,
  answers: readonly ResolvedAnswer[],
): string | undefined {
  for (const answer of answers) {
    if (!secretQuestions?.includes(answer.question)) continue;
    if (answer.selected.length > 0 || !answer.other?.startsWith(sealedPrefix))
      return (
        `"${answer.question}" is secret: answer it with the client SDK or \`arbor answer\`, which seal the text with ` +
        'ARBOR_SECRET_KEY (the key the workers have), never in clear.'
      );
  }
  return undefined;
}
