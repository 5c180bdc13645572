import type { ToolProfile } from './profile.js';
import type { ProfileName } from './names.js';
import { rtcProfile } from './rtc.js';
import { claurstProfile } from './claurst.js';
import { soaiProfile } from './soai.js';
import { allProfile } from './all.js';

export { defaultProfile, isProfileName, profileNames, profileSchema, type ProfileName } from './names.js';
export type { ToolProfile } from './profile.js';

export const toolProfiles: Readonly<Record<ProfileName, ToolProfile>> = {
  rtc: rtcProfile,
  claurst: claurstProfile,
  soai: soaiProfile,
  all: allProfile,
};

export function profileTools(profile: ProfileName): readonly string[] {
  return toolProfiles[profile].tools;
}

/** Whether `name` is a built-in tool of some profile other than `profile`: a name the session could have had. */
export function profilesWithTool(name: string): ProfileName[] {
  return Object.values(toolProfiles)
    .filter((candidate) => candidate.tools.includes(name as never))
    .map((candidate) => candidate.name);
}
