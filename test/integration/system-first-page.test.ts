// On a fresh probe the first page a browser gets is the setup wizard; once an administrator exists,
// the UI's start page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp } from '../helpers/harness.js';

test('/ leads to the setup wizard until the first administrator exists', async () => {
  const t = await startTestApp();
  try {
    const first = await t.request('GET', '/');
    assert.equal(first.status, 302);
    assert.equal(first.headers.get('location'), '/setup');
    assert.equal(first.headers.get('cache-control'), 'no-store', 'a cached redirect would outlive the setup');
    const wizard = await t.request('GET', '/setup');
    assert.equal(wizard.status, 200);
    assert.match(wizard.text, /<html/);
    assert.match(wizard.text, /netprobe-admin-password\.txt/, 'the page says where the one-time password is');

    await t.admin();
    const after = await t.request('GET', '/');
    assert.equal(after.status, 200);
    assert.match(after.text, /<html/);
  } finally {
    await t.close();
  }
});
