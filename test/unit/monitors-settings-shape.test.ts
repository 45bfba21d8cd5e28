// An update's settings are checked for shape before anything walks them (issue 12, item 4): a body nested
// 100,000 deep is a list of field errors, not "Maximum call stack size exceeded"; markers and secrets
// left out (which the merge keeps from storage) are no shape errors; mergeSecrets copies only what it
// changes, so it never recurses into its input either.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mergeSecrets, settingsShapeErrors } from '../../src/modules/monitors/checks/index.js';

/** { [key]: { [key]: ... leaf } }, `depth` levels, built without recursion. */
function nested(depth: number, key = 'a', leaf: unknown = 'x'): Record<string, unknown> {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = { [key]: v };
  return v as Record<string, unknown>;
}

const DEEP = 100_000;

describe('settingsShapeErrors', () => {
  test('100,000 levels deep anywhere: field errors naming the place, no stack overflow', () => {
    const cases: [string, unknown, string][] = [
      ['an unknown key', nested(DEEP), 'settings'],
      ['auth', { auth: nested(DEEP) }, 'settings.auth.type'],
      ['a password', { auth: { type: 'basic', username: 'u', password: nested(DEEP) } }, 'settings.auth.password'],
      ['a secret header', { headers: { 'X-API-Key': nested(DEEP) } }, 'settings.headers.X-API-Key'],
      ['a plain header', { headers: { Accept: nested(DEEP) } }, 'settings.headers.Accept'],
      ['headers themselves', { headers: nested(DEEP, 'Authorization') }, 'settings.headers.Authorization'],
      ['an array field', { accepted_status: [nested(DEEP)] }, 'settings.accepted_status.0'],
    ];
    for (const [what, settings, path] of cases) {
      const errors = settingsShapeErrors('http', settings);
      assert.ok(errors.some((e) => e.path === path), `${what}: ${JSON.stringify(errors)}`);
    }
    for (const type of ['ping', 'tcp', 'dns'] as const) {
      assert.deepEqual(settingsShapeErrors(type, nested(DEEP)).map((e) => e.path), ['settings'], type);
    }
  });

  test('markers and secrets left out are not shape errors; wrong values still are', () => {
    assert.deepEqual(settingsShapeErrors('http', {
      auth: { type: 'basic', username: 'u', password: { set: true } },
      headers: { 'X-API-Key': { set: true }, Accept: { set: true } },
    }), []);
    assert.deepEqual(settingsShapeErrors('http', { auth: { type: 'basic', username: 'u' } }), []);
    assert.deepEqual(settingsShapeErrors('http', { auth: { type: 'bearer' } }), []);
    assert.deepEqual(settingsShapeErrors('http', { method: 'FETCH' }).map((e) => e.path), ['settings.method']);
    assert.deepEqual(settingsShapeErrors('http', { auth: { type: 'basic', password: { set: false } } }).map((e) => e.path).sort(),
      ['settings.auth.password', 'settings.auth.username']);
    assert.deepEqual(settingsShapeErrors('http', 'not an object').map((e) => e.path), ['settings']);
  });

  test('the input is not changed', () => {
    const input = { auth: { type: 'basic', username: 'u', password: { set: true } }, headers: { 'X-API-Key': { set: true } } };
    const copy = structuredClone(input);
    settingsShapeErrors('http', input);
    assert.deepEqual(input, copy);
  });
});

describe('mergeSecrets', () => {
  test('never recurses into its input: 100,000 levels under a key it does not own are passed through', () => {
    const deep = nested(DEEP);
    const out = mergeSecrets('http', { body: deep, auth: { type: 'basic', username: 'u', password: { set: true } } },
      { auth: { type: 'basic', username: 'u', password: 'stored' } }) as Record<string, any>;
    assert.equal(out.body, deep, 'shared, not cloned');
    assert.equal(out.auth.password, 'stored');
  });

  test('copies the objects it changes: the caller\'s input stays as it was', () => {
    const input = { auth: { type: 'bearer', token: { set: true } }, headers: { Authorization: { set: true } } };
    const out = mergeSecrets('http', input, { auth: { type: 'bearer', token: 't' }, headers: { authorization: 'Token abc' } });
    assert.deepEqual(out, { auth: { type: 'bearer', token: 't' }, headers: { Authorization: 'Token abc' } });
    assert.deepEqual(input, { auth: { type: 'bearer', token: { set: true } }, headers: { Authorization: { set: true } } });
  });
});
