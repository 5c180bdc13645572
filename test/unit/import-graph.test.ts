import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const src = join(root, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * Every relative import and re-export of each file under src/, as paths relative to src/: type-only ones included,
 * or (`values`) only those that load the module at run time.
 */
function importGraph(kind: 'all' | 'values' = 'all'): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(src)) {
    const text = readFileSync(file, 'utf8');
    const statements = [...text.matchAll(/(?:^|\n)\s*((?:import|export)\b[^'";]*?)from\s+'(\.[^']+)'/g)];
    const targets = statements
      .filter((match) => kind === 'all' || !/^(?:import|export)\s+type\b/.test(match[1]!))
      .map((match) => relative(src, resolve(dirname(file), match[2]!.replace(/\.js$/, '.ts'))));
    graph.set(relative(src, file), targets);
  }
  return graph;
}

/** The strongly connected groups of more than one file (Tarjan's algorithm). */
function loops(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== file);
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe('the import graph of src/', () => {
  const graph = importGraph();

  it('is read from every source file', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('client.ts')).toContain('client/arbor-client.ts');
  });

  it('has no loop of files outside src/shared/, counting type-only imports', () => {
    const outsideShared = loops(graph).filter((group) => group.some((file) => !file.startsWith('shared/')));
    expect(outsideShared).toEqual([]);
  });

  it('has no loop of imports that load a module at run time, in src/shared/ either', () => {
    expect(loops(importGraph('values'))).toEqual([]);
  });

  it('has no import of workflow code from outside src/workflows/', () => {
    const reaching = [...graph].filter(
      ([file, targets]) => !file.startsWith('workflows/') && targets.some((target) => target.startsWith('workflows/')),
    );
    expect(reaching.map(([file]) => file)).toEqual([]);
  });

  it('finds a loop when there is one', () => {
    const looped = new Map([
      ['workflows/a.ts', ['workflows/b.ts']],
      ['workflows/b.ts', ['workflows/a.ts']],
      ['shared/c.ts', []],
    ]);
    expect(loops(looped)).toEqual([['workflows/a.ts', 'workflows/b.ts']]);
  });
});
