// Makes dist/src/main.js, the file the service runs, one module: tsc's output of src/ joined by esbuild,
// the npm packages left to node_modules. Node 20 spent about 0.35 s of each start-up on finding, reading
// and linking the 342 modules one at a time (measured: importing the tree took 0.81-0.87 s, the single
// file 0.38-0.56 s); a probe restarts after every update, crash and power cut.
//
// Each module keeps what it knows of itself:
// - import.meta.url becomes the URL its own file had (beside the bundle, dist/src/…), so data files read
//   beside a module (the OID store, the MAC vendor table) and require() from it resolve as before;
// - a route() call gets the source file that declares it (`file`), which the registry otherwise reads from
//   the call's stack, and a stack in the bundle names only main.js.
// The rest of dist/src stays: the data files, and modules that tools import one by one (migrations.js).
// Run after `tsc -p tsconfig.build.json` (npm run build; ./build.sh does both).
import { build } from 'esbuild';
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const distSrc = join(root, 'dist', 'src');

// Data files the code reads beside itself.
const DATA = (p) => p.endsWith('.json') && (p.split(sep).includes('oids') || p.endsWith('oui-table.json'));
(function copyData(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) copyData(p);
    else if (DATA(p)) cpSync(p, join(distSrc, relative(join(root, 'src'), p)));
  }
})(join(root, 'src'));

const ROUTE_CALL = /\broute\(\{/g;

/** esbuild plugin: each module of dist/src as it was beside the bundle (see the head of this file). */
const ownPlace = {
  name: 'own-place',
  setup(b) {
    b.onLoad({ filter: /[\\/]dist[\\/]src[\\/].*\.js$/ }, (args) => {
      let text = readFileSync(args.path, 'utf8');
      const fromBundle = relative(distSrc, args.path).split(sep).join('/');
      text = text.replaceAll('import.meta.url', `new URL(${JSON.stringify(`./${fromBundle}`)}, import.meta.url).href`);
      const source = `src/${fromBundle.replace(/\.js$/, '.ts')}`;
      text = text.replace(ROUTE_CALL, `route({ file: ${JSON.stringify(source)}, `);
      return { contents: text, loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

const entry = join(distSrc, 'main.js');
const result = await build({
  entryPoints: [entry], outfile: entry, allowOverwrite: true, bundle: true, platform: 'node', format: 'esm', target: 'node20',
  packages: 'external', plugins: [ownPlace], logLevel: 'warning', legalComments: 'none',
  // Read only with node --enable-source-maps: stack traces back to the modules of dist/src.
  sourcemap: 'linked', sourcesContent: false,
});
if (result.errors.length) process.exit(1);

// V8 keeps a module's source for as long as it runs (lazy compilation), as a one-byte string when every
// character is Latin-1 and as a two-byte one otherwise: five comments and a regular expression with "…"
// or "→" doubled the bundle's 1.4 MiB in the heap. esbuild escapes strings, not comments or regular
// expressions; \uXXXX means the same character in all three (and in identifiers).
const text = readFileSync(entry, 'utf8');
const ascii = text.replace(/[^\t\n\r\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
if (ascii !== text) writeFileSync(entry, ascii);

console.log(`dist/src/main.js: one module, ${(statSync(entry).size / 1048576).toFixed(1)} MiB`);
