import type { ToolName } from '../registry.js';
import type { ProfileName } from './names.js';

/** A tool profile as plain data: the tools the model is shown and may call, and how the profile speaks about them. */
export interface ToolProfile {
  name: ProfileName;
  /**
   * The built-in tools of the profile, in the order the model is shown them. Tools of the seed that Arbor does not
   * have yet are listed in the profile's comment and join here by name once they are in the registry.
   */
  tools: readonly ToolName[];
  /** The default system prompt of a session with this profile: what its tools are for. */
  systemPrompt: string;
  /** Appended to a tool's description in this profile only: when to use it rather than an overlapping tool. */
  descriptionNotes?: Readonly<Partial<Record<ToolName, string>>>;
  /**
   * Tools a sub-agent never gets when its parent's call names none. `fixed`: never, even when the parent names them
   * (soai's rule); otherwise the parent may name them.
   */
  subAgentRemovals: { names: readonly string[]; fixed: boolean };
  /** Rewrites a successful JSON result of a tool into the seed's shape (field names); absent: as the handler wrote it. */
  adaptResult?: (toolName: string, content: string) => string;
}

/** Renames the keys of a JSON result at any depth; text that is not JSON is returned unchanged. */
export function renameResultKeys(content: string, names: Readonly<Record<string, string>>): string {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return content;
  }
  const rename = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rename);
    if (node === null || typeof node !== 'object') return node;
    return Object.fromEntries(Object.entries(node).map(([key, inner]) => [names[key] ?? key, rename(inner)]));
  };
  return JSON.stringify(rename(value));
}
