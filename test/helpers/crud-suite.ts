// The baseline tests every API resource owes (NetBox's generic API test cases are the model): create, get,
// list (paging, filters), update, partial update, history, delete, 404s, 400s naming the field, and the
// access rules. A resource joins with one crudSuite() call (docs/development.md, "Tests"); it asserts only
// what docs/api.md and SPEC.md promise every resource, so a resource's own behaviour stays in its own tests.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { assertProblem, type TestApp, type TestResponse } from './harness.js';

type Body = Record<string, unknown>;

/** A list filter: a record created with `body` is listed under `query`, a plain one is not. */
export interface FilterCase { query: Record<string, string>; body: Body }

export interface CrudResource {
  /** The test names' prefix. */
  name: string;
  /** The collection path (`/api/webhooks`); a record is at `${path}/${id}`. */
  path: string;
  /** A valid create body; each call must give a new one (names are often unique). Called only inside tests. */
  create: (n: number) => Body;
  /** A PUT body, for a resource that has PUT: each of its fields comes back as sent. */
  update?: Body;
  /** A PATCH body, for a resource that has PATCH: its fields change and the others stay. At least one of the two. */
  patch?: Body;
  /** Fields that make a create body a 400 naming the field: [fields, field]; a function when a value exists only later. */
  invalid: [Body | (() => Body), string][];
  /** Fields of the create body the answer does not echo (write-only secrets shown as {set: true}). */
  writeOnly?: string[];
  /** List filters by test name; a function when the filter needs another record first. */
  listFilters?: Record<string, FilterCase | (() => Promise<FilterCase>)>;
  /** The change-history path of a record (`{items, total}` of entries with `action`, kept after the delete). */
  history?: (id: string) => string;
  /** The read and write scopes of API keys. */
  scopes: { read: string; write: string };
  /** Writes are for administrators only: an operator may read but not write. */
  admin?: boolean;
  /** false when the resource has no GET of one record (then PUT and DELETE prove the 404s). */
  get?: boolean;
  /** false when the list takes no limit and offset (it is still `{items, total}`). */
  paging?: boolean;
  /** The list's array when SPEC.md fixes another shape than `{items, total}` (`monitors`). */
  listOf?: string;
  idField?: string;
}

/** Registers the suite in a describe() of its own; `app` gives the started app shared by the file. */
export function crudSuite(app: () => TestApp, r: CrudResource): void {
  const idField = r.idField ?? 'id';
  const hasGet = r.get !== false;
  // The change the history, 404 and access tests make: PUT where the resource has it, else PATCH.
  const [changeMethod, change] = r.update ? ['PUT', r.update] : ['PATCH', r.patch];
  if (!change) throw new Error(`${r.name}: give update (PUT) or patch (PATCH)`);
  let n = 0;
  let t: TestApp;
  let admin: string;
  const api = (method: string, path: string, body?: unknown, key = admin) => t.request(method, path, { key, body });
  const created = async (extra: Body = {}): Promise<Body> => {
    const res = await api('POST', r.path, { ...r.create(++n), ...extra });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const idOf = (rec: Body) => String(rec[idField]);
  const itemsOf = (res: TestResponse): Body[] => (r.listOf ? res.body[r.listOf] : res.body.items);
  const listIds = async (query = '') => {
    const res = await api('GET', r.path + query);
    assert.equal(res.status, 200, res.text);
    return itemsOf(res).map(idOf);
  };
  // Stored secrets come back as {set: true}; an echo is compared only for the fields the answer shows.
  const assertEcho = (sent: Body, got: Body) => {
    for (const [k, v] of Object.entries(sent)) if (!r.writeOnly?.includes(k)) assert.deepEqual(got[k], v, `${k} as sent`);
  };

  describe(`${r.name} (crud kit)`, () => {
    before(async () => { t = app(); admin = (await t.admin()).key; });

    test(`${r.name}: create is a 201 with the record as sent`, async () => {
      const body = r.create(++n);
      const res = await api('POST', r.path, body);
      assert.equal(res.status, 201, res.text);
      assert.equal(typeof res.body[idField], 'string');
      assertEcho(body, res.body);
    });

    if (hasGet) {
      test(`${r.name}: get by id is the record as created`, async () => {
        const rec = await created();
        const res = await api('GET', `${r.path}/${idOf(rec)}`);
        assert.equal(res.status, 200, res.text);
        for (const [k, v] of Object.entries(rec)) assert.deepEqual(res.body[k], v, k);
      });
    }

    test(`${r.name}: list holds the created records${r.paging === false ? '' : ', paged by limit and offset'}`, async () => {
      const ids = [idOf(await created()), idOf(await created()), idOf(await created())];
      const all = await api('GET', r.path);
      assert.equal(all.status, 200, all.text);
      const items = itemsOf(all);
      for (const id of ids) assert.ok(items.some((i) => idOf(i) === id), `${id} listed`);
      if (r.listOf) return;
      assert.equal(all.body.total, items.length);
      if (r.paging === false) return;
      // One record a page, page after page, is the whole list in the same order; past the end is empty.
      const paged: string[] = [];
      for (let offset = 0; offset < all.body.total; offset++) {
        const page = await api('GET', `${r.path}?limit=1&offset=${offset}`);
        assert.equal(page.status, 200, page.text);
        assert.equal(page.body.total, all.body.total);
        assert.equal(page.body.items.length, 1);
        paged.push(idOf(page.body.items[0]));
      }
      assert.deepEqual(paged, items.map(idOf));
      assert.deepEqual((await api('GET', `${r.path}?limit=1&offset=${all.body.total}`)).body.items, []);
      assertProblem(await api('GET', `${r.path}?limit=0`), 400, 'query.limit');
    });

    for (const [name, filter] of Object.entries(r.listFilters ?? {})) {
      test(`${r.name}: list filter ${name}`, async () => {
        const f = typeof filter === 'function' ? await filter() : filter;
        const hit = idOf(await created(f.body)), miss = idOf(await created());
        const ids = await listIds(`?${new URLSearchParams(f.query)}`);
        assert.ok(ids.includes(hit), 'the matching record is listed');
        assert.ok(!ids.includes(miss), 'the other is not');
      });
    }

    if (r.update) {
      const update = r.update;
      test(`${r.name}: PUT changes the fields given`, async () => {
        const id = idOf(await created());
        const res = await api('PUT', `${r.path}/${id}`, update);
        assert.equal(res.status, 200, res.text);
        assertEcho(update, res.body);
        if (hasGet) assertEcho(update, (await api('GET', `${r.path}/${id}`)).body);
      });
    }

    if (r.patch) {
      const patch = r.patch;
      test(`${r.name}: PATCH changes the fields given and keeps the others`, async () => {
        const rec = await created();
        const res = await api('PATCH', `${r.path}/${idOf(rec)}`, patch);
        assert.equal(res.status, 200, res.text);
        assertEcho(patch, res.body);
        for (const k of Object.keys(rec)) if (!(k in patch) && k !== 'updated_at') assert.deepEqual(res.body[k], rec[k], `${k} kept`);
      });
    }

    if (r.history) {
      const history = r.history;
      test(`${r.name}: history records create, update and delete, and outlives the record`, async () => {
        const id = idOf(await created());
        assert.equal((await api(changeMethod, `${r.path}/${id}`, change)).status, 200);
        const h = await api('GET', history(id));
        assert.equal(h.status, 200, h.text);
        assert.deepEqual(h.body.items.map((e: Body) => e.action), ['update', 'create'], 'newest first');
        assert.equal(h.body.total, 2);
        assert.equal((await api('DELETE', `${r.path}/${id}`)).status, 204);
        const gone = await api('GET', history(id));
        assert.equal(gone.status, 200, gone.text);
        assert.equal(gone.body.items[0].action, 'delete');
      });
    }

    test(`${r.name}: delete is a 204, then the record is a 404`, async () => {
      const id = idOf(await created());
      const res = await api('DELETE', `${r.path}/${id}`);
      assert.equal(res.status, 204, res.text);
      assert.ok(!(await listIds()).includes(id), 'no longer listed');
      if (hasGet) assertProblem(await api('GET', `${r.path}/${id}`), 404);
      assertProblem(await api('DELETE', `${r.path}/${id}`), 404);
    });

    test(`${r.name}: an unknown id is a 404`, async () => {
      const id = randomUUID();
      if (hasGet) assertProblem(await api('GET', `${r.path}/${id}`), 404);
      assertProblem(await api(changeMethod, `${r.path}/${id}`, change), 404);
      assertProblem(await api('DELETE', `${r.path}/${id}`), 404);
    });

    for (const [body, field] of r.invalid) {
      test(`${r.name}: create with a bad ${field} is a 400 naming it`, async () => {
        assertProblem(await api('POST', r.path, { ...r.create(++n), ...(typeof body === 'function' ? body() : body) }), 400, field);
      });
    }

    test(`${r.name}: a viewer reads but cannot write`, async () => {
      const id = idOf(await created());
      const viewer = await t.user('viewer', [r.scopes.read]);
      assert.equal((await api('GET', r.path, undefined, viewer.key)).status, 200);
      if (hasGet) assert.equal((await api('GET', `${r.path}/${id}`, undefined, viewer.key)).status, 200);
      for (const opts of [{ key: viewer.key }, { cookie: viewer.cookie }]) {
        assertProblem(await t.request('POST', r.path, { ...opts, body: r.create(++n) }), 403);
        assertProblem(await t.request(changeMethod, `${r.path}/${id}`, { ...opts, body: change }), 403);
        assertProblem(await t.request('DELETE', `${r.path}/${id}`, opts), 403);
      }
    });

    test(`${r.name}: an API key without its scope is a 403`, async () => {
      const id = idOf(await created());
      // The key holds one unrelated scope; its owner's role would allow everything.
      const other = [r.scopes.read, r.scopes.write].includes('monitors:read') ? 'webhooks:read' : 'monitors:read';
      const { key } = await t.user('admin', [other]);
      assertProblem(await api('GET', r.path, undefined, key), 403);
      if (hasGet) assertProblem(await api('GET', `${r.path}/${id}`, undefined, key), 403);
      assertProblem(await api('POST', r.path, r.create(++n), key), 403);
      assertProblem(await api('DELETE', `${r.path}/${id}`, undefined, key), 403);
    });

    if (r.admin) {
      test(`${r.name}: an operator reads but only an administrator writes`, async () => {
        const id = idOf(await created());
        const op = await t.user('operator', [r.scopes.read, r.scopes.write]);
        assert.equal((await api('GET', r.path, undefined, op.key)).status, 200);
        for (const opts of [{ key: op.key }, { cookie: op.cookie }]) {
          assertProblem(await t.request('POST', r.path, { ...opts, body: r.create(++n) }), 403);
          assertProblem(await t.request(changeMethod, `${r.path}/${id}`, { ...opts, body: change }), 403);
          assertProblem(await t.request('DELETE', `${r.path}/${id}`, opts), 403);
        }
      });
    }
  });
}
