// The machine key and its envelopes (src/core/secretbox.ts): round trip, tampering and a wrong key are
// refused, the key file is 0600 from the start, and callers racing to create it (in one process and in
// several) all end up with the one key on disk.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import {
  createSecretBox, isSealed, loadMachineKey, MACHINE_KEY_FILE, openSecretBox, SEALED_PREFIX, SecretUnreadableError, UNREADABLE_SECRET,
} from '../../src/core/secretbox.js';

const run = promisify(execFile);
const tempDir = () => mkdtemp(join(tmpdir(), 'netprobe-secretbox-'));

describe('envelopes', () => {
  const box = createSecretBox(randomBytes(32));

  test('seal then open gives the value back; every seal has a fresh IV', () => {
    for (const v of ['hunter2', '', 'päss wörd ✓ 🔑', 'x'.repeat(10_000)]) {
      const sealed = box.seal(v);
      assert.ok(sealed.startsWith(SEALED_PREFIX));
      assert.ok(isSealed(sealed) && box.isSealed(sealed));
      assert.ok(!sealed.includes(v) || v === '', 'the value is not in the envelope');
      assert.equal(box.open(sealed), v);
    }
    assert.notEqual(box.seal('same'), box.seal('same'));
  });

  test('isSealed recognises envelopes only', () => {
    for (const v of ['hunter2', 'enc1:', 'enc1:short', 'enc1:not base64 at all!!!!!!!!!!!!!!!!!!!!!!!!!!!', null, 42, { set: true }]) {
      assert.equal(isSealed(v), false, String(v));
    }
  });

  test('an altered envelope is refused, whatever byte changed', () => {
    const sealed = box.seal('the secret');
    const raw = Buffer.from(sealed.slice(SEALED_PREFIX.length), 'base64');
    for (let i = 0; i < raw.length; i++) {
      const bad = Buffer.from(raw);
      bad[i]! ^= 0x01;
      const env = SEALED_PREFIX + bad.toString('base64');
      assert.throws(() => box.open(env), (e: Error) => e instanceof SecretUnreadableError && e.message === UNREADABLE_SECRET, `byte ${i}`);
      assert.equal(box.tryOpen(env), null);
    }
    assert.throws(() => box.open(SEALED_PREFIX + raw.subarray(0, raw.length - 1).toString('base64')), SecretUnreadableError);
    assert.throws(() => box.open('hunter2'), SecretUnreadableError);
  });

  test('another key cannot open it', () => {
    const other = createSecretBox(randomBytes(32));
    const sealed = box.seal('the secret');
    assert.throws(() => other.open(sealed), /stored secret cannot be decrypted: re-enter it/);
    assert.equal(other.tryOpen(sealed), null);
    assert.throws(() => createSecretBox(randomBytes(16)), /32 bytes/);
  });
});

describe('the machine key file', () => {
  test('created on first use: 32 bytes, mode 0600 whatever the umask, no temp file left; then loaded as is', async () => {
    const dir = await tempDir();
    const old = process.umask(0);
    try {
      const key = await loadMachineKey(dir);
      const st = await stat(join(dir, MACHINE_KEY_FILE));
      assert.equal(st.mode & 0o777, 0o600);
      assert.equal(st.size, 32);
      assert.deepEqual(await readFile(join(dir, MACHINE_KEY_FILE)), key);
      assert.deepEqual(await readdir(dir), [MACHINE_KEY_FILE]);
      assert.deepEqual(await loadMachineKey(dir), key);
      // A box opened later on the same directory opens what an earlier one sealed.
      const sealed = (await openSecretBox(dir)).seal('across restarts');
      assert.equal((await openSecretBox(dir)).open(sealed), 'across restarts');
    } finally {
      process.umask(old);
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a key file readable by others is set back to 0600; one that is not a key is moved aside', async () => {
    const dir = await tempDir();
    try {
      const file = join(dir, MACHINE_KEY_FILE);
      const key = await loadMachineKey(dir);
      await chmod(file, 0o644);
      const warnings: string[] = [];
      const log = {
        info: () => undefined, warn: (m: string) => { warnings.push(m); return 0; }, error: (m: string) => { warnings.push(m); },
      };
      assert.deepEqual(await loadMachineKey(dir, log), key);
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      assert.match(warnings.join('\n'), /readable by others/);
      await writeFile(file, 'not a key\n', { mode: 0o600 });
      const fresh = await loadMachineKey(dir, log);
      assert.equal(fresh.length, 32);
      assert.notDeepEqual(fresh, key);
      assert.ok((await readdir(dir)).some((f) => f.startsWith(`${MACHINE_KEY_FILE}.invalid-`)), 'the bad file is kept aside');
      assert.match(warnings.join('\n'), /not a key/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('concurrent first use in one process: every caller gets the one key on disk', async () => {
    const dir = await tempDir();
    try {
      const keys = await Promise.all(Array.from({ length: 24 }, () => loadMachineKey(dir)));
      const onDisk = await readFile(join(dir, MACHINE_KEY_FILE));
      for (const k of keys) assert.deepEqual(k, onDisk);
      assert.deepEqual(await readdir(dir), [MACHINE_KEY_FILE], 'no temp files left');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('concurrent first use by several processes: all of them get the one key on disk', async () => {
    const dir = await tempDir();
    try {
      const mod = new URL('../../src/core/secretbox.ts', import.meta.url).href;
      const script = `const { loadMachineKey } = await import(${JSON.stringify(mod)});
        const k = await loadMachineKey(${JSON.stringify(dir)}); process.stdout.write(k.toString('hex'));`;
      const outs = await Promise.all(Array.from({ length: 4 }, () =>
        run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 60_000 })));
      const onDisk = (await readFile(join(dir, MACHINE_KEY_FILE))).toString('hex');
      for (const o of outs) assert.equal(o.stdout, onDisk);
      assert.equal((await stat(join(dir, MACHINE_KEY_FILE))).mode & 0o777, 0o600);
      assert.deepEqual(await readdir(dir), [MACHINE_KEY_FILE]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
