import type { HostToolEntry } from '../shared/host-tools.js';

/** Scores of a keyword match, in the seed's order of kinds (claurst ToolSearchTool, its Rust figures). */
const scores = { exactName: 20, nameContains: 10, descriptionContains: 5, hint: 8 } as const;

const selectPrefix = 'select:';

/**
 * The tools a ToolSearch query finds, best first. `select:A,B` looks names up exactly (case-insensitively when no
 * name is spelled so), in the order given, not capped by `max`. Keywords score each tool: the whole query equal to
 * its name, then per word: in its name, in its description, in its hints (its arguments' names and descriptions);
 * ties keep catalogue order.
 */
export function searchTools(tools: readonly HostToolEntry[], query: string, max: number): string[] {
  const trimmed = query.trim();
  if (trimmed.toLowerCase().startsWith(selectPrefix)) return selectTools(tools, trimmed.slice(selectPrefix.length));
  const whole = trimmed.toLowerCase();
  const words = [...new Set(whole.split(/\s+/).filter(Boolean))];
  const scored = tools.map((tool, index) => ({ name: tool.name, index, score: scoreOf(tool, whole, words) }));
  return scored
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, max)
    .map((entry) => entry.name);
}

function selectTools(tools: readonly HostToolEntry[], list: string): string[] {
  const found: string[] = [];
  for (const wanted of list
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean)) {
    const tool = tools.find((entry) => entry.name === wanted) ?? tools.find((entry) => entry.name.toLowerCase() === wanted.toLowerCase());
    if (tool && !found.includes(tool.name)) found.push(tool.name);
  }
  return found;
}

function scoreOf(tool: HostToolEntry, whole: string, words: readonly string[]): number {
  const name = tool.name.toLowerCase();
  const description = tool.description.toLowerCase();
  const hints = hintsOf(tool);
  let score = name === whole ? scores.exactName : 0;
  for (const word of words) {
    if (name.includes(word)) score += scores.nameContains;
    if (description.includes(word)) score += scores.descriptionContains;
    if (hints.some((hint) => hint.includes(word))) score += scores.hint;
  }
  return score;
}

/** A host tool's hints: the names and descriptions of its arguments, lower case. */
function hintsOf(tool: HostToolEntry): string[] {
  const properties = tool.parameters['properties'];
  if (!properties || typeof properties !== 'object') return [];
  const hints: string[] = [];
  for (const [key, schema] of Object.entries(properties as Record<string, unknown>)) {
    hints.push(key.toLowerCase());
    const description = schema && typeof schema === 'object' ? (schema as Record<string, unknown>)['description'] : undefined;
    if (typeof description === 'string') hints.push(description.toLowerCase());
  }
  return hints;
}
