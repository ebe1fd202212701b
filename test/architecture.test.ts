/**
 * The folders of src/ form no import cycle: a domain that needs another goes through that
 * domain's service or exported interface, and http/, db/, util/ never reach back into a domain.
 * Reads the value imports of every file under src/ (`import type` and all-`type` specifier lists
 * are erased by the compiler, so they do not count) and fails on any cycle between folders,
 * printing it with the imports that make each edge.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(__dirname, '../src');

/**
 * Folder edges that still close a cycle, left out of the check until they are removed; each entry
 * must still exist (a stale entry fails), so the list only shrinks. Empty is the goal.
 */
const ALLOWED_CYCLE_EDGES: ReadonlyArray<readonly [string, string]> = [];

/**
 * Imports of another folder's SQL (`store.ts`, `*-store.ts`) still to be replaced by that domain's
 * service or exported interface, as `importer → store`; each entry must still exist, so the list
 * only shrinks. Empty is the goal.
 */
const ALLOWED_STORE_IMPORTS: readonly string[] = [];

/** A folder of src/; files at the top of src/ are each a node of their own (`server.ts`). */
function nodeOf(file: string): string {
  return path.relative(SRC, file).split(path.sep)[0]!;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

/**
 * Relative specifiers of a file's value imports and re-exports; with `withTypes`, of its type-only
 * imports too.
 */
function valueImports(text: string, withTypes = false): string[] {
  const out: string[] = [];
  const re = /^\s*(import|export)\s+(type\s+)?([^'";]*?)\s*(?:from\s+)?['"]([^'"]+)['"]/gm;
  for (const m of text.matchAll(re)) {
    const [, , typeOnly, clause, spec] = m;
    if (!spec!.startsWith('.')) continue;
    if (withTypes) {
      out.push(spec!);
      continue;
    }
    if (typeOnly) continue;
    const braces = /^\{([\s\S]*)\}$/.exec(clause!.trim());
    if (braces) {
      const names = braces[1]!
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      if (names.length > 0 && names.every((n) => n.startsWith('type '))) continue;
    }
    out.push(spec!);
  }
  return out;
}

/**
 * Every value import (with `withTypes`, every import) between files of src/, as [importer, target],
 * both relative to src/.
 */
function fileImports(withTypes = false): Array<[string, string]> {
  return sourceFiles(SRC).flatMap((file) =>
    valueImports(readFileSync(file, 'utf8'), withTypes).map((spec): [string, string] => [
      path.relative(SRC, file),
      path.relative(SRC, path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts')),
    ]),
  );
}

/** Folder graph: node → node → the imports (file → target) that make the edge. */
function folderGraph(): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const file of sourceFiles(SRC)) {
    const from = nodeOf(file);
    if (!graph.has(from)) graph.set(from, new Map());
    for (const spec of valueImports(readFileSync(file, 'utf8'))) {
      const target = path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts');
      const to = nodeOf(target);
      if (to === from) continue;
      const edges = graph.get(from)!;
      if (!edges.has(to)) edges.set(to, []);
      edges.get(to)!.push(`${path.relative(SRC, file)} → ${path.relative(SRC, target)}`);
    }
  }
  return graph;
}

/** Strongly connected components with more than one node (Tarjan). */
function cycles(graph: Map<string, Map<string, string[]>>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) found.push(scc.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) visit(v);
  return found;
}

/** One closed path through a component, e.g. `http → users → http`, with each edge's imports. */
function describeCycle(graph: Map<string, Map<string, string[]>>, scc: string[]): string {
  const inScc = new Set(scc);
  const start = scc[0]!;
  // Breadth-first from start back to start, inside the component.
  const prev = new Map<string, string>();
  const queue = [start];
  let end: string | undefined;
  while (queue.length && !end) {
    const v = queue.shift()!;
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!inScc.has(w)) continue;
      if (w === start) {
        end = v;
        break;
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  const pathNodes = [start];
  for (let v = end!; v !== start; v = prev.get(v)!) pathNodes.splice(1, 0, v);
  pathNodes.push(start);
  const lines = [`cycle {${scc.join(', ')}}: ${pathNodes.join(' → ')}`];
  for (let i = 0; i + 1 < pathNodes.length; i++)
    lines.push(`  ${graph.get(pathNodes[i]!)!.get(pathNodes[i + 1]!)![0]}`);
  lines.push('  every edge inside it:');
  for (const from of scc) {
    for (const [to, imports] of graph.get(from) ?? [])
      if (inScc.has(to)) lines.push(`    ${from} → ${to}: ${imports.join(', ')}`);
  }
  return lines.join('\n');
}

describe('architecture', () => {
  it('reads value imports and skips type-only ones', () => {
    expect(
      valueImports(
        "import { a } from './a.js';\nimport type { B } from '../b/x.js';\nimport { type C } from '../c.js';\n" +
          "import {\n  type D,\n  e,\n} from '../d.js';\nexport * from './f.js';\n",
      ),
    ).toEqual(['./a.js', '../d.js', './f.js']);
  });

  it('has no import cycle between the folders of src/', () => {
    const graph = folderGraph();
    const stale = ALLOWED_CYCLE_EDGES.filter(([from, to]) => !graph.get(from)?.has(to)).map(
      ([from, to]) => `${from} → ${to}`,
    );
    expect(stale, 'allow-listed edges that no longer exist: remove them from ALLOWED_CYCLE_EDGES').toEqual([]);
    for (const [from, to] of ALLOWED_CYCLE_EDGES) graph.get(from)!.delete(to);
    const found = cycles(graph);
    const report = found.map((scc) => describeCycle(graph, scc)).join('\n');
    expect(report, `folder import cycles:\n${report}`).toBe('');
  });

  it("keeps each domain's SQL to itself: no folder imports another folder's store, not even a type", () => {
    const found = fileImports(true)
      .filter(([from, to]) => from.includes(path.sep) && nodeOf(path.join(SRC, from)) !== nodeOf(path.join(SRC, to)))
      .filter(([, to]) => /(^|[-/])store\.ts$/.test(to))
      .map(([from, to]) => `${from} → ${to}`);
    const unique = [...new Set(found)];
    const stale = ALLOWED_STORE_IMPORTS.filter((edge) => !unique.includes(edge));
    expect(stale, 'allow-listed store imports that no longer exist: remove them from ALLOWED_STORE_IMPORTS').toEqual(
      [],
    );
    expect(
      unique.filter((edge) => !ALLOWED_STORE_IMPORTS.includes(edge)),
      "imports of another domain's store",
    ).toEqual([]);
  });
});
