import { z } from 'zod';
import type OpenAI from 'openai';
import { findTool } from '../shared/tools/registry.js';
import type { HostToolCatalogue } from '../shared/host-tools.js';

type FunctionTool = OpenAI.Chat.Completions.ChatCompletionFunctionTool;

const specs = new Map<string, FunctionTool>();

/**
 * The function-tool declarations sent to the model: a built-in tool's derived from its zod schema, a host tool's as
 * the session's catalogue describes it.
 */
export function toolSpecs(names: readonly string[], catalogue?: HostToolCatalogue): FunctionTool[] {
  const result: FunctionTool[] = [];
  const hostTools = new Map(catalogue?.tools.map((tool) => [tool.name, tool]));
  for (const name of names) {
    const cached = specs.get(name);
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
    const spec: FunctionTool = { type: 'function', function: { name: tool.name, description: tool.description, parameters } };
    specs.set(name, spec);
    result.push(spec);
  }
  return result;
}
