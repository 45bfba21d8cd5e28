// Contract: every alert type a webhook can subscribe to (GET /api/webhooks/alert-types) is raised
// somewhere, and everything raised is registered. A type with no producer would be offered to webhooks
// that then wait for ever (issue 32).
//
// Proven statically, from the source: an alert is made only by makeAlert() (webhooks/alert.ts) or
// raiseAlert() (webhooks/index.ts), and each call names its type as a literal `type: '...'` property of
// its argument object. A call whose object has no literal type fails here too: name it, so this test can
// see it. Runtime events would need every module's conditions reproduced; the call sites are the claim.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { MODULES } from '../../src/main.js';
import { alertTypes } from '../../src/modules/webhooks/index.js';

const SRC = join(import.meta.dirname, '../../src');
const CALL = /\b(makeAlert|raiseAlert)\(/g;

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...await sourceFiles(p));
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** The text of a call's arguments, from just after its `(` to the matching `)`, strings skipped. */
function argumentsOf(text: string, open: number): string {
  let depth = 1;
  let quote = '';
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '\'' || c === '"' || c === '`') quote = c;
    else if (c === '(' || c === '{' || c === '[') depth++;
    else if (c === ')' || c === '}' || c === ']') {
      if (--depth === 0) return text.slice(open, i);
    }
  }
  return text.slice(open);
}

/** `type: '<name>'` at the top level of the call's object argument (not inside details or monitor). */
function literalType(args: string): string | null {
  let depth = 0;
  for (let i = 0; i < args.length; i++) {
    const c = args[i]!;
    if (c === '{' || c === '(' || c === '[') depth++;
    else if (c === '}' || c === ')' || c === ']') depth--;
    else if (depth === 1) {
      const m = /^\btype:\s*'([a-z0-9_]+)'/.exec(args.slice(i));
      if (m && !/[\w$]/.test(args[i - 1] ?? '')) return m[1]!;
    }
  }
  return null;
}

/** Each makeAlert/raiseAlert call in src/ with the type it names (null: none as a literal). */
async function producers(): Promise<{ at: string; type: string | null }[]> {
  const found: { at: string; type: string | null }[] = [];
  for (const file of await sourceFiles(SRC)) {
    const text = await readFile(file, 'utf8');
    for (const m of text.matchAll(CALL)) {
      const before = text.slice(Math.max(0, m.index - 20), m.index);
      if (/function\s+$/.test(before)) continue; // the definition, not a call
      const line = text.slice(0, m.index).split('\n').length;
      const args = argumentsOf(text, m.index + m[0].length);
      // A call that only passes an input through (the alerter's makeAlert(input)) raises what its callers name.
      if (!args.includes('{')) continue;
      found.push({ at: `${relative(SRC, file)}:${line}`, type: literalType(args) });
    }
  }
  return found;
}

test('every registered alert type has a producer, and every produced type is registered', async () => {
  assert.ok(MODULES.length > 0); // every module loaded: their registerAlertType calls have run
  const registered = alertTypes().map((t) => t.type);
  const calls = await producers();
  assert.ok(calls.length >= 5, `the scan finds the producers (found ${calls.length})`);
  const unnamed = calls.filter((c) => c.type === null).map((c) => c.at);
  assert.deepEqual(unnamed, [], 'alert calls with no literal `type:` (name the type where the alert is made)');
  const produced = new Set(calls.map((c) => c.type));
  const silent = registered.filter((t) => !produced.has(t));
  assert.deepEqual(silent, [], 'registered alert types nothing raises: take them out until their producer lands');
  const unknown = [...produced].filter((t) => !registered.includes(t!));
  assert.deepEqual(unknown, [], 'alert types raised but not registered');
});
