// src/ has no import cycles, type-only imports included: a cycle means two files cannot be understood
// (or moved) apart, and a value cycle can leave an import undefined while modules load. The core's leaf
// files (errors, net, audit types, store types) import nothing of the core; everything else builds on them.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []);
}

/** Relative imports and re-exports of a file (value and type-only alike), as absolute .ts paths. */
export function importsOf(file: string, text: string): string[] {
  const out: string[] = [];
  const re = /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;
  for (const m of text.matchAll(re)) out.push(resolve(dirname(file), (m[1] ?? m[2])!.replace(/\.js$/, '.ts')));
  return out;
}

/** Every strongly connected component of more than one file (or a file importing itself): the cycles. */
export function cyclesOf(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>(), low = new Map<string, number>(), onStack = new Set<string>(), stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index); low.set(v, index); index++;
    stack.push(v); onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); }
      else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do { w = stack.pop()!; onStack.delete(w); scc.push(w); } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return found;
}

test('the cycle finder finds a cycle, and only a cycle', () => {
  const g = (edges: Record<string, string[]>) => new Map(Object.entries(edges));
  assert.deepEqual(cyclesOf(g({ a: ['b'], b: ['c'], c: ['a'], d: ['a'] })), [['a', 'b', 'c']]);
  assert.deepEqual(cyclesOf(g({ a: ['b'], b: ['c'], c: [], d: ['a', 'c'] })), []);
  assert.deepEqual(importsOf('/x/a.ts', "import type { A } from './b.js';\nexport { c } from '../c.js';\nimport z from 'zod';"),
    ['/x/b.ts', '/c.ts']);
});

test('src/ has no import cycles', () => {
  const files = tsFiles(SRC);
  const graph = new Map(files.map((f) => [f, importsOf(f, readFileSync(f, 'utf8'))]));
  const cycles = cyclesOf(graph).map((c) => c.map((f) => relative(ROOT, f)).join(' <-> '));
  assert.deepEqual(cycles, [], `import cycles:\n${cycles.join('\n')}`);
});
