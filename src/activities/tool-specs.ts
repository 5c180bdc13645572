import { z } from 'zod';
import type OpenAI from 'openai';
import { findTool } from '../shared/tools/registry.js';
import type { HostToolCatalogue } from '../shared/host-tools.js';
import { toolProfiles, type ProfileName } from '../shared/tools/profiles/index.js';

type FunctionTool = OpenAI.Chat.Completions.ChatCompletionFunctionTool;

const specs = new Map<string, FunctionTool>();

/**
 * The function-tool declarations sent to the model: a built-in tool's derived from its zod schema (its description with
 * the profile's note on when to use it), a host tool's as the session's catalogue describes it.
 */
export function toolSpecs(names: readonly string[], catalogue?: HostToolCatalogue, profile: ProfileName = 'all'): FunctionTool[] {
  const result: FunctionTool[] = [];
  const hostTools = new Map(catalogue?.tools.map((tool) => [tool.name, tool]));
  const notes = toolProfiles[profile].descriptionNotes ?? {};
  for (const name of names) {
    const key = `${profile}/${name}`;
    const cached = specs.get(key);
    if (cached) {
      result.push(cached);
      continue;
    }
    const tool = findTool(name);
    if (!tool) {
      const hostTool = hostTools.get(name);
      if (hostTool) {
        result.push({ type: 'function', function: { name, description: hostTool.description, parameters: hostTool.parameters } });
      }
      continue;
    }
    const { $schema: _ignored, ...parameters } = z.toJSONSchema(tool.input, { io: 'input' }) as Record<string, unknown>;
    const note = notes[tool.name];
    const description = note ? `${tool.description} ${note}` : tool.description;
    const spec: FunctionTool = { type: 'function', function: { name: tool.name, description, parameters } };
    specs.set(key, spec);
    result.push(spec);
  }
  return result;
}
