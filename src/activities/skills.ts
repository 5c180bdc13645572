import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { skillNamePattern, type SkillRequest } from '../shared/tools/skill.js';
import type { ToolReply } from '../shared/tool-reply.js';
import { maxToolResultLength } from '../shared/host-tools.js';

/** The skills folder of a worker, when it has one (default: ARBOR_SKILLS_DIR). */
export function skillsDirFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dir = env['ARBOR_SKILLS_DIR']?.trim();
  return dir ? dir : undefined;
}

const frontMatter = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

interface SkillFile {
  name: string;
  path: string;
}

/**
 * The `readSkill` activity: a skill is `<name>.md` in the owner's subfolder (`<dir>/<owner>/`), else in the folder
 * itself. Its YAML front matter is stripped and `$ARGUMENTS` replaced; `list` names the skills with their descriptions.
 */
export function createSkillActivities(skillsDir: string | false | undefined) {
  return {
    async readSkill(request: SkillRequest): Promise<ToolReply<string>> {
      if (!skillsDir) return { ok: false, error: 'This worker has no skills folder.' };
      const skills = await listSkills(skillsDir, request.owner);
      if (request.skill === 'list') return { ok: true, result: await describeSkills(skills) };
      const found = skills.find((file) => file.name === request.skill);
      if (!found) {
        const names = skills.map((file) => file.name).join(', ') || 'none';
        return { ok: false, error: `Unknown skill "${request.skill}". Skills: ${names}.` };
      }
      const { body } = splitFrontMatter(await readFile(found.path, 'utf8'));
      const text = body.replaceAll('$ARGUMENTS', request.args ?? '');
      // Refused here, not cut later: the text is recorded in history, and a skill is followed whole or not at all.
      if (text.length > maxToolResultLength)
        return {
          ok: false,
          error: `The skill "${request.skill}" is ${text.length} characters long, more than the ${maxToolResultLength} a tool result may have.`,
        };
      return { ok: true, result: text };
    },
  };
}

/** The owner's skills, then the folder's own ones that the owner's do not shadow, by name. */
async function listSkills(dir: string, owner: string): Promise<SkillFile[]> {
  const ownFolder = skillNamePattern.test(owner) ? await skillFiles(join(dir, owner)) : [];
  const shared = await skillFiles(dir);
  const names = new Set(ownFolder.map((file) => file.name));
  return [...ownFolder, ...shared.filter((file) => !names.has(file.name))].sort((a, b) => a.name.localeCompare(b.name));
}

async function skillFiles(dir: string): Promise<SkillFile[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw error;
  }
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => ({ name: entry.name.slice(0, -'.md'.length), path: join(dir, entry.name) }))
    .filter((file) => skillNamePattern.test(file.name));
}

async function describeSkills(skills: readonly SkillFile[]): Promise<string> {
  if (skills.length === 0) return 'No skills.';
  const lines = await Promise.all(
    skills.map(async (file) => {
      const { description } = splitFrontMatter(await readFile(file.path, 'utf8'));
      return description ? `- ${file.name}: ${description}` : `- ${file.name}`;
    }),
  );
  return `Skills:\n${lines.join('\n')}`;
}

/** The text after the front matter, and the front matter's `description` (none when it is not YAML or has none). */
export function splitFrontMatter(text: string): { body: string; description?: string } {
  const match = frontMatter.exec(text);
  if (!match) return { body: text };
  const body = text.slice(match[0].length);
  let data: unknown;
  try {
    data = parse(match[1]!);
  } catch {
    return { body };
  }
  const description = data && typeof data === 'object' ? (data as Record<string, unknown>)['description'] : undefined;
  return typeof description === 'string' && description.trim() ? { body, description: description.trim() } : { body };
}
