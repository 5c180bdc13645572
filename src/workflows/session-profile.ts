import type { SessionInput } from '../shared/session.js';
import type { ProfileName } from '../shared/tools/profiles/names.js';

/**
 * The session's tool profile: the one its input names, else `all`. `all` is the tool set of every session from before
 * profiles, so their histories replay, and their runs continue, with the tools they had; no patch is needed. New
 * sessions name one: the SDK and the CLI fill in `rtc` when the caller gives none, a parent hands its own to its
 * sub-agents, a run hands its own to the next at continue-as-new, and an automation to its runs. Only a client that
 * builds the input itself (the Temporal CLI, say) and names none gets `all`, as before profiles.
 */
export function sessionProfile(input: SessionInput): ProfileName {
  return input.profile ?? 'all';
}
