// Data a probe in use holds, written through the API of one build and checked through the API of another
// (upgrade and self-update tests): monitors with results, an incident and events; an inventory item with
// history; a vault with a credential; a webhook. Each part only when the writing build has that module.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { assertAllKept, assertKept, pick } from './kept.js';
import { freePort } from './net.js';

export interface ApiResponse { status: number; text: string; body: any; headers: Headers }
export type Api = (method: string, path: string, body?: unknown) => Promise<ApiResponse>;

export const ADMIN = { username: 'root-admin', password: 'correct horse battery staple' };
const PASSPHRASE = 'Upgrade-Vault-Passphrase-4417';
const COMMUNITY = 'Upgrade-Community-Plover-2093';
/** The Telegram webhook's bot path (on the test's receiver) and chat. */
export const TELEGRAM_PATH = '/bot123456:Upgrade-Bot-Token/sendMessage';
export const TELEGRAM_CHAT = -1001234567890;

export interface Features { monitors: boolean; inventory: boolean; vault: boolean; webhooks: boolean; snmpTemplates: boolean }

/** What the checkout in `dir` can store, from its modules. */
export function featuresOf(dir: string): Features {
  const has = (p: string) => existsSync(join(dir, 'src/modules', p));
  return {
    monitors: has('monitors/index.ts'), inventory: has('brain/index.ts'), vault: has('brain/vault.ts') || has('brain/vault/service.ts'), webhooks: has('webhooks/index.ts'),
    snmpTemplates: has('snmp/templates/routes.ts'),
  };
}

/** A client for a service at `base` (a program), sending `headers` (an API key or a cookie) with each call. */
export function httpApi(base: string, headers: Record<string, string> = {}): Api {
  return async (method, path, body) => {
    const r = await fetch(base + path, {
      method, headers: { ...headers, origin: base, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await r.text();
    const json = text && (r.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text;
    return { status: r.status, text, body: json, headers: r.headers };
  };
}

/** First run: bootstraps ADMIN with the setup code in `dataDir`, signs in, returns an admin API key. */
export async function bootstrapAdmin(base: string, dataDir: string): Promise<string> {
  const anon = httpApi(base);
  const setupCode = (await readFile(join(dataDir, 'initial-admin-password'), 'utf8')).trim();
  const b = await anon('POST', '/api/setup/bootstrap', { setup_code: setupCode, ...ADMIN });
  assert.equal(b.status, 201, b.text);
  const login = await anon('POST', '/api/auth/login', ADMIN);
  assert.equal(login.status, 200, login.text);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
  const k = await httpApi(base, { cookie })('POST', '/api/api-keys', { name: 'probe-data', scopes: ['admin'] });
  assert.equal(k.status, 201, k.text);
  return k.body.key as string;
}

export interface Written {
  features: Features;
  ids: Record<string, string>;
  /** GET responses of the writing build, taken after everything was written. */
  seen: Record<string, any>;
}

/** Fails unless the call answers `status`; returns the body. */
async function call(api: Api, method: string, path: string, body?: unknown, status = method === 'POST' ? 201 : 200): Promise<any> {
  const r = await api(method, path, body);
  assert.equal(r.status, status, `${method} ${path}: ${r.text}`);
  return r.body;
}

async function until(what: string, ok: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Writes the data through `api` (an admin). `httpTarget` is an HTTP server that answers 200 (the up
 * monitor), `hookUrl` a receiver for the webhook (the down monitor alerts it).
 */
export async function writeProbeData(
  api: Api, features: Features, peers: { httpTarget: string; hookUrl: string },
): Promise<Written> {
  const ids: Record<string, string> = {};
  const seen: Record<string, any> = {};
  const get = (path: string) => call(api, 'GET', path);
  if (features.monitors) {
    // One up, one down (an incident and events). Hourly, so a restarted build does not check them again.
    const mk = async (body: Record<string, unknown>) =>
      (await call(api, 'POST', '/api/monitors', { interval: 3600, timeout: 2, ...body })).id as string;
    ids.web = await mk({ name: 'probe-data-web', check_type: 'http', target: peers.httpTarget });
    ids.down = await mk({ name: 'probe-data-down', check_type: 'tcp', target: `127.0.0.1:${await freePort()}`, failure_threshold: 1 });
    const total = async (id: string) => (await get(`/api/monitors/${id}/results?limit=1`)).total as number;
    await until('the first checks', async () => (await total(ids.web!)) >= 1 && (await total(ids.down!)) >= 1);
    await call(api, 'POST', `/api/monitors/${ids.web}/check`, undefined, 200);
    await until('the second check', async () => (await total(ids.web!)) >= 2);
    // Failing below its threshold (two failed checks of three): builds before migration 212 counted that
    // time as available, later ones as down.
    ids.failing = await mk({ name: 'probe-data-failing', check_type: 'tcp', target: `127.0.0.1:${await freePort()}`, failure_threshold: 3 });
    await until('the failing monitor\'s first check', async () => (await total(ids.failing!)) >= 1);
    await new Promise((r) => setTimeout(r, 50)); // some time at its status, for a time-weighted uptime
    await call(api, 'POST', `/api/monitors/${ids.failing}/check`, undefined, 200);
    await until('its second check', async () => (await total(ids.failing!)) >= 2);
  }
  if (features.vault) {
    await call(api, 'POST', '/api/brain/vault/setup', { passphrase: PASSPHRASE }, 200);
    const cred = { name: 'probe-data', kind: 'snmp_v2c', community: COMMUNITY };
    ids.credential = (await call(api, 'POST', '/api/brain/credentials', cred)).id;
    // A use of the credential: a build with credential scopes gives the credential this template's target.
    if (features.snmpTemplates) {
      ids.template = (await call(api, 'POST', '/api/snmp/templates',
        { name: 'probe-data', target: '127.0.0.1', credential_id: ids.credential, oids: ['system'] })).id;
    }
  }
  if (features.inventory) {
    const cred = ids.credential ? { credential_id: ids.credential } : {};
    ids.endpoint = (await call(api, 'POST', '/api/brain/endpoints', { hostname: 'probe-data-sw1', ...cred })).id;
    await call(api, 'PUT', `/api/brain/endpoints/${ids.endpoint}`, { vendor: 'Acme', notes: 'before the upgrade' });
  }
  if (features.webhooks) {
    ids.webhook = (await call(api, 'POST', '/api/webhooks', { name: 'probe-data', url: peers.hookUrl })).id;
    // A Telegram webhook as the build stores it: builds before provider options packed the chat into the
    // URL's query; later ones refuse that and take it as an option. Either way it must deliver after.
    const tg = { name: 'probe-data-telegram', type: 'telegram', url: `${new URL(peers.hookUrl).origin}${TELEGRAM_PATH}` };
    const packed = await api('POST', '/api/webhooks', { ...tg, url: `${tg.url}?chat_id=${TELEGRAM_CHAT}` });
    if (packed.status === 201) { ids.telegram = packed.body.id; ids.telegramPacked = 'yes'; }
    else {
      const opts = await api('POST', '/api/webhooks', { ...tg, options: { chat_id: String(TELEGRAM_CHAT) } });
      if (opts.status === 201) ids.telegram = opts.body.id; // a build with no Telegram provider writes none
    }
  }

  if (features.monitors) {
    seen.monitors = (await get('/api/monitors')).monitors;
    seen.webResults = await get(`/api/monitors/${ids.web}/results?limit=100`);
    seen.downResults = await get(`/api/monitors/${ids.down}/results?limit=100`);
    seen.incidents = await get(`/api/monitors/${ids.down}/incidents`);
    seen.events = await get('/api/monitors/events?limit=200');
    assert.ok(seen.incidents.items.length >= 1, 'the down monitor opened an incident');
  }
  if (features.inventory) {
    seen.endpoint = await get(`/api/brain/endpoints/${ids.endpoint}`);
    seen.history = await get(`/api/brain/history/endpoints/${ids.endpoint}`);
    assert.equal(seen.history.total, 2, JSON.stringify(seen.history));
  }
  if (features.vault) seen.credential = await get(`/api/brain/credentials/${ids.credential}`);
  if (features.webhooks) seen.webhooks = await get('/api/webhooks');
  return { features, ids, seen };
}

/**
 * Checks through `api` that another build shows everything `w` holds. The vault is locked after a
 * restart: it is unlocked with the same passphrase, and `readSecret` (the vault's secrets.read, when the
 * build runs in this process) must decrypt the credential's secret.
 */
export async function checkProbeData(api: Api, w: Written, readSecret?: (id: string) => Record<string, unknown>): Promise<void> {
  const { ids, seen, features } = w;
  const get = (path: string) => call(api, 'GET', path);
  if (features.monitors) {
    const fields = ['id', 'name', 'check_type', 'target', 'interval', 'status', 'last_check'];
    const monitors = (await get('/api/monitors')).monitors as any[];
    for (const old of seen.monitors as any[]) {
      const now = monitors.find((m) => m.id === old.id);
      assert.ok(now, `monitor ${old.name} is still there`);
      assert.deepEqual(pick(now, fields), pick(old, fields));
    }
    assertAllKept(seen.webResults.items, (await get(`/api/monitors/${ids.web}/results?limit=100`)).items, 'http results');
    assertAllKept(seen.downResults.items, (await get(`/api/monitors/${ids.down}/results?limit=100`)).items, 'tcp results');
    const inc = ['id', 'opened_at', 'closed_at'];
    assert.deepEqual((await get(`/api/monitors/${ids.down}/incidents`)).items.map((i: any) => pick(i, inc)),
      seen.incidents.items.map((i: any) => pick(i, inc)));
    assertAllKept(seen.events.items, (await get('/api/monitors/events?limit=200')).items, 'monitor events');
  }
  if (features.inventory) {
    assertKept(seen.endpoint, await get(`/api/brain/endpoints/${ids.endpoint}`), 'endpoint');
    assertKept(seen.history, await get(`/api/brain/history/endpoints/${ids.endpoint}`), 'endpoint history');
  }
  if (features.webhooks) {
    // The URL as listed may be redacted or its stored form sealed: a test delivery shows it still works.
    const fields = ['id', 'name', 'enabled'];
    const now = (await get('/api/webhooks')).items.find((h: any) => h.id === ids.webhook);
    assert.ok(now, 'the webhook is still there');
    assert.deepEqual(pick(now, fields), pick(seen.webhooks.items.find((h: any) => h.id === ids.webhook), fields));
    // A webhook stored before channels chose their monitors gets every monitor's alerts, without reminders (as before).
    assert.deepEqual(now.monitors, seen.webhooks.items.find((h: any) => h.id === ids.webhook).monitors ?? { mode: 'all' });
    assert.equal(now.reminder_minutes ?? null, null);
    const sent = await call(api, 'POST', `/api/webhooks/${ids.webhook}/test`, undefined, 200);
    assert.equal(sent.ok, true, `a test delivery reaches the webhook's URL: ${JSON.stringify(sent)}`);
    if (ids.telegram) {
      const tg = await call(api, 'POST', `/api/webhooks/${ids.telegram}/test`, undefined, 200);
      assert.equal(tg.ok, true, `the Telegram webhook (${ids.telegramPacked ? 'its chat packed in the URL' : 'its chat an option'}) ` +
        `still delivers: ${JSON.stringify(tg)}`);
    }
  }
  if (features.vault) {
    // A build that gave credentials a scope gives the stored ones theirs at the upgrade: a change of the record.
    const { updated_at: _changed, ...credential } = seen.credential as Record<string, unknown>;
    assertKept(credential, await get(`/api/brain/credentials/${ids.credential}`), 'credential');
    assert.equal((await get('/api/brain/vault/status')).locked, true, 'the vault is locked after a restart');
    await call(api, 'POST', '/api/brain/vault/unlock', { passphrase: PASSPHRASE }, 200);
    if (readSecret) assert.equal(readSecret(ids.credential!).community, COMMUNITY);
  }
}
