import { z } from 'zod';
import type OpenAI from 'openai';
import { findTool } from '../shared/tools/registry.js';

type FunctionTool = OpenAI.Chat.Completions.ChatCompletionFunctionTool;

const specs = new Map<string, FunctionTool>();

/** The function-tool declarations sent to the model, derived from each tool's zod schema. */
export function toolSpecs(names: readonly string[]): FunctionTool[] {
  const result: FunctionTool[] = [];
  for (const name of names) {
    const cached = specs.get(name);
    if (cached) {
      result.push(cached);
      continue;
    }
    const tool = findTool(name);
    if (!tool) continue;
    const { $schema: _ignored, ...parameters } = z.toJSONSchema(tool.input, { io: 'input' }) as Record<string, unknown>;
    const spec: FunctionTool = { type: 'function', function: { name: tool.name, description: tool.description, parameters } };
    specs.set(name, spec);
    result.push(spec);
  }
  return result;
}
