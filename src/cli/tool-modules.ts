import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isToolDefinition, type ToolDefinition } from '../tools/define.js';
import { UsageError } from './usage-error.js';
import { buildCatalogue, ToolDefinitionError } from '../tools/catalogue.js';

/**
 * `--tools` values and ARBOR_TOOLS are comma-separated lists. For `worker` and `dev` each item is a module of tool
 * definitions; for `run`, `start` and `chat` an item with a `/` or a `.` in it (which no tool name has) is such a
 * module, for the in-process worker, and any other item is a tool the session may use.
 */
export function collectList(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').map((item) => item.trim())].filter(Boolean);
}

export function isModulePath(item: string): boolean {
  return item.includes('/') || item.includes('.');
}

/** The modules named by `--tools` and by ARBOR_TOOLS (comma-separated), in that order. */
export function toolModulePaths(flagged: readonly string[] = [], env: NodeJS.ProcessEnv = process.env): string[] {
  return [...flagged, ...collectList(env.ARBOR_TOOLS ?? '')];
}

/**
 * Imports each module and takes its tool definitions: a default export that is a list of them (or one), and every
 * named export that is one. A module that cannot be loaded or exports none is a usage error that names it.
 */
export async function loadToolModules(paths: readonly string[]): Promise<ToolDefinition[]> {
  const tools: ToolDefinition[] = [];
  for (const path of paths) {
    let exports: Record<string, unknown>;
    try {
      exports = (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>;
    } catch (error) {
      throw new UsageError(`Cannot load the tools module ${path}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const found = new Set<ToolDefinition>();
    const { default: fallback, ...named } = exports;
    for (const value of [...(Array.isArray(fallback) ? fallback : [fallback]), ...Object.values(named)]) {
      if (isToolDefinition(value)) found.add(value);
    }
    if (found.size === 0) {
      throw new UsageError(
        `The tools module ${path} exports no tool definitions: export them (or a default list of them) made with defineHostTool() or defineRemoteTool() from arbor/tools.`,
      );
    }
    tools.push(...found);
  }
  try {
    buildCatalogue(tools);
  } catch (error) {
    if (error instanceof ToolDefinitionError) throw new UsageError(`${error.message} (tools from ${paths.join(', ')})`);
    throw error;
  }
  return tools;
}
