// The monitors' storage (src/modules/monitors/storage/) has one interface, its index.ts: no file of src/
// outside the folder imports another of its files, and its files import nothing of src/ but the core and
// each other, so that the next users of time series can take it as it is. (Tests and the bench may
// reach inside: they test and measure its parts.)
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');
const STORAGE = join(SRC, 'modules', 'monitors', 'storage');
const CORE = join(SRC, 'core');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []);
}

/** Relative imports and re-exports of a file (type-only and dynamic ones too), as absolute .ts paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const re = /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;
  return [...text.matchAll(re)].map((m) => resolve(dirname(file), (m[1] ?? m[2])!.replace(/\.js$/, '.ts')));
}

const inside = (dir: string, file: string) => file.startsWith(dir + sep);
const rel = (f: string) => relative(ROOT, f);

test('outside monitors/storage/, src/ imports only its index.ts', () => {
  const wrong: string[] = [];
  for (const file of tsFiles(SRC)) {
    if (inside(STORAGE, file)) continue;
    for (const target of importsOf(file)) {
      if (inside(STORAGE, target) && target !== join(STORAGE, 'index.ts')) wrong.push(`${rel(file)} imports ${rel(target)}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('monitors/storage/ imports nothing of src/ but the core and its own files', () => {
  const files = tsFiles(STORAGE);
  assert.ok(files.length >= 10, 'the storage files are where this test looks');
  const wrong: string[] = [];
  for (const file of files) {
    for (const target of importsOf(file)) {
      if (!inside(STORAGE, target) && !inside(CORE, target)) wrong.push(`${rel(file)} imports ${rel(target)}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('the scan sees imports: queries.ts reads through the storage index', () => {
  const probe = join(SRC, 'modules', 'monitors', 'queries.ts');
  const targets = importsOf(probe);
  assert.ok(targets.includes(join(STORAGE, 'index.ts')), 'queries.ts reads through the storage index');
});
