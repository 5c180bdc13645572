import { describe, expect, it } from 'vitest';
import { toolSpecs } from '../../src/activities/tool-specs.js';
import { todoWrite } from '../../src/shared/tools/todo.js';
import { toolProfiles } from '../../src/shared/tools/profiles/index.js';

type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  required?: string[];
  enum?: string[];
  [key: string]: unknown;
};

describe('toolSpecs', () => {
  it('declares todoWrite as a function tool with its name and description', () => {
    const specs = toolSpecs(['todoWrite'], undefined, 'rtc');
    expect(specs).toHaveLength(1);
    expect(specs[0]!.type).toBe('function');
    expect(specs[0]!.function.name).toBe('todoWrite');
    expect(specs[0]!.function.description).toBe(todoWrite.description);
  });

  it("appends the profile's note on when to use an overlapping tool to its description, in that profile only", () => {
    const [all] = toolSpecs(['todoWrite'], undefined, 'all');
    expect(all!.function.description).toBe(`${todoWrite.description} ${toolProfiles.all.descriptionNotes!.todoWrite}`);
    expect(all!.function.description).toContain('task board (TaskCreate)');
    expect(toolSpecs(['todoWrite'], undefined, 'rtc')[0]!.function.description).toBe(todoWrite.description);
  });

  it('gives todoWrite an object schema with a todos array whose items require content and status', () => {
    const parameters = toolSpecs(['todoWrite'])[0]!.function.parameters as Schema;
    expect(parameters.type).toBe('object');
    const todos = parameters.properties?.todos;
    expect(todos?.type).toBe('array');
    const items = todos?.items;
    expect(items?.type).toBe('object');
    expect(items?.required).toEqual(expect.arrayContaining(['content', 'status']));
    expect(items?.required).not.toContain('active_form');
    expect(items?.properties?.status?.enum).toEqual(['pending', 'in_progress', 'completed']);
    expect(Object.keys(items?.properties ?? {}).sort()).toEqual(['active_form', 'content', 'status']);
  });

  it('leaves the $schema key out of the parameters', () => {
    const parameters = toolSpecs(['todoWrite'])[0]!.function.parameters as Schema;
    expect(parameters).not.toHaveProperty('$schema');
    expect(JSON.stringify(parameters)).not.toContain('$schema');
  });

  it('skips names that are not built-in tools and keeps the order of the rest', () => {
    expect(toolSpecs(['nope', 'todoWrite', 'alsoNope']).map((spec) => spec.function.name)).toEqual(['todoWrite']);
    expect(toolSpecs([])).toEqual([]);
    expect(toolSpecs(['nope'])).toEqual([]);
  });

  it('gives the same declaration on every call', () => {
    const first = toolSpecs(['todoWrite'])[0];
    const second = toolSpecs(['todoWrite'])[0];
    expect(second).toEqual(first);
  });
});
