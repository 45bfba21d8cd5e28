#!/usr/bin/env node
// Copies the web UI's third-party ES modules from node_modules into ui/vendor/<package>@<version>/
// (ignored by git; served with immutable cache headers because the version is in the path) and
// writes the matching import map into ui/index.html. Run by the build before it compiles or bundles;
// the end-to-end tests call it too. Idempotent: it rewrites only what changed.
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * What each package contributes: files to copy (`from` inside the package, `to` inside its vendor
 * directory), optional text to wrap a file in, and the import-map names it answers to.
 */
const PACKAGES = [
  {
    name: 'preact',
    files: [
      { from: 'dist/preact.mjs', to: 'preact.mjs' }, { from: 'dist/preact.mjs.map', to: 'preact.mjs.map' },
      { from: 'hooks/dist/hooks.mjs', to: 'hooks.mjs' }, { from: 'hooks/dist/hooks.mjs.map', to: 'hooks.mjs.map' },
      { from: 'LICENSE', to: 'LICENSE' },
    ],
    imports: { preact: 'preact.mjs', 'preact/hooks': 'hooks.mjs' },
  },
  {
    name: 'htm',
    files: [{ from: 'dist/htm.mjs', to: 'htm.mjs' }, { from: 'preact/index.mjs', to: 'preact.mjs' }, { from: 'LICENSE', to: 'LICENSE' }],
    imports: { htm: 'htm.mjs', 'htm/preact': 'preact.mjs' },
  },
  {
    // uPlot's ES build is not minified; its minified build is a script that declares `var uPlot`,
    // which inside a module is module-scoped, so exporting it makes a minified ES module.
    name: 'uplot',
    files: [
      { from: 'dist/uPlot.iife.min.js', to: 'uplot.mjs', append: '\nexport default uPlot;\n' },
      { from: 'dist/uPlot.min.css', to: 'uplot.css' }, { from: 'LICENSE', to: 'LICENSE' },
    ],
    imports: { uplot: 'uplot.mjs' },
  },
  {
    // The topology map's graph library: loaded by the map page only (its own first-load budget).
    name: 'cytoscape',
    files: [{ from: 'dist/cytoscape.esm.min.mjs', to: 'cytoscape.mjs' }, { from: 'LICENSE', to: 'LICENSE' }],
    imports: { cytoscape: 'cytoscape.mjs' },
  },
  {
    // QR codes drawn in the browser (a Tailscale login link); the package ships no LICENSE file (MIT).
    name: 'qrcode-generator',
    files: [{ from: 'dist/qrcode.mjs', to: 'qrcode.mjs' }],
    imports: { 'qrcode-generator': 'qrcode.mjs' },
  },
];

const MAP_START = '<script type="importmap">';
const MAP_END = '</script>';

async function writeIfChanged(file, content) {
  const old = await readFile(file).catch(() => null);
  if (old && Buffer.compare(old, Buffer.from(content)) === 0) return false;
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, content);
  return true;
}

/** Copies the vendor files and updates the import map; returns the import map. */
export async function vendorUi({ root = ROOT, log = console.log } = {}) {
  const vendorDir = join(root, 'ui', 'vendor');
  const imports = {};
  const keep = new Set();
  for (const pkg of PACKAGES) {
    const pkgDir = join(root, 'node_modules', pkg.name);
    const { version } = JSON.parse(await readFile(join(pkgDir, 'package.json'), 'utf8'));
    const dirName = `${pkg.name}@${version}`;
    keep.add(dirName);
    for (const f of pkg.files) {
      let content = await readFile(join(pkgDir, f.from));
      if (f.append) content = Buffer.concat([content, Buffer.from(f.append)]);
      if (await writeIfChanged(join(vendorDir, dirName, f.to), content)) log(`ui/vendor/${dirName}/${f.to}`);
    }
    for (const [name, file] of Object.entries(pkg.imports)) imports[name] = `/vendor/${dirName}/${file}`;
  }
  // Versions that are no longer installed go, so the vendor directory holds exactly what the map names.
  for (const d of existsSync(vendorDir) ? await readdir(vendorDir) : []) {
    if (!keep.has(d)) { await rm(join(vendorDir, d), { recursive: true, force: true }); log(`removed ui/vendor/${d}`); }
  }

  const indexFile = join(root, 'ui', 'index.html');
  const html = await readFile(indexFile, 'utf8');
  const start = html.indexOf(MAP_START);
  const end = start < 0 ? -1 : html.indexOf(MAP_END, start);
  if (start < 0 || end < 0) throw new Error(`ui/index.html has no ${MAP_START} block to fill`);
  const map = { imports };
  const block = `${MAP_START}\n    ${JSON.stringify(map, null, 2).replace(/\n/g, '\n    ')}\n  ${MAP_END}`;
  if (await writeIfChanged(indexFile, html.slice(0, start) + block + html.slice(end + MAP_END.length))) log('ui/index.html import map');
  return map;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  vendorUi().catch((e) => { console.error(`ui-vendor: ${e.message}`); process.exit(1); });
}
