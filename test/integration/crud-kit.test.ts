// The resources that have joined the CRUD test kit (test/helpers/crud-suite.ts), on one started app:
// each gets create, get, list, filters, update, history, delete, 404s, 400s and access rules from a few lines.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { crudSuite } from '../helpers/crud-suite.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
const app = () => t;
let sshCredential = '';
let v2cCredential = '';

/** A record the filters and bodies refer to, created as the administrator. */
const make = async (path: string, body: Record<string, unknown>): Promise<string> => {
  const r = await t.request('POST', path, { key: (await t.admin()).key, body });
  assert.equal(r.status, 201, r.text);
  return r.body.id;
};

before(async () => {
  t = await startTestApp();
  const { key } = await t.admin();
  assert.equal((await t.request('POST', '/api/brain/vault/setup', { key, body: { passphrase: 'correct horse battery staple' } })).status, 200);
  const scope = ['127.0.0.0/8'];
  sshCredential = await make('/api/brain/credentials', { name: 'kit ssh', kind: 'ssh_password', username: 'kit', password: 'kit-pass-1', scope });
  v2cCredential = await make('/api/brain/credentials', { name: 'kit v2c', kind: 'snmp_v2c', community: 'kit-community', scope });
});
after(() => t.close());

const brain = { read: 'brain:read', write: 'brain:write' };
const history = (type: string) => (id: string) => `/api/brain/history/${type}/${id}`;

crudSuite(app, {
  name: 'brain sites', path: '/api/brain/sites', scopes: brain, history: history('sites'),
  create: (n) => ({ name: `kit site ${n}`, address: `${n} Kit Street` }),
  update: { name: 'kit site renamed', time_zone: 'Europe/Berlin', tags: ['kit'] },
  invalid: [[{ name: '' }, 'name'], [{ time_zone: 'Mars/Olympus' }, 'time_zone'], [{ latitude: 91, longitude: 0 }, 'latitude'],
    [{ colour: 'red' }, 'colour']],
  listFilters: {
    time_zone: { query: { time_zone: 'Asia/Tokyo' }, body: { time_zone: 'Asia/Tokyo' } },
    tag: { query: { tag: 'kit-tag' }, body: { tags: ['kit-tag'] } },
    q: { query: { q: 'needle' }, body: { name: 'kit haystack needle site' } },
  },
});

crudSuite(app, {
  name: 'brain endpoints', path: '/api/brain/endpoints', scopes: brain, history: history('endpoints'),
  create: (n) => ({ name: `kit endpoint ${n}`, ip_addresses: [`10.77.0.${n}`], role: 'server' }),
  update: { vendor: 'KitCo', role: 'switch' },
  invalid: [[{ role: 'toaster' }, 'role'], [{ ip_addresses: ['10.77.0.300'] }, 'ip_addresses.0'],
    [{ site_id: 'SI-99999' }, 'site_id']],
  listFilters: {
    role: { query: { role: 'router' }, body: { role: 'router' } },
    vendor: { query: { vendor: 'FilterCo' }, body: { vendor: 'FilterCo' } },
    site_id: async () => {
      const site = await make('/api/brain/sites', { name: 'kit filter site' });
      return { query: { site_id: site }, body: { site_id: site } };
    },
  },
});

crudSuite(app, {
  name: 'brain credentials', path: '/api/brain/credentials', scopes: brain, admin: true, history: history('credentials'),
  create: (n) => ({ name: `kit credential ${n}`, kind: 'snmp_v2c', community: `community-${n}`, scope: ['127.0.0.0/8'] }),
  writeOnly: ['community'],
  update: { name: 'kit credential renamed', scope: ['127.0.0.1'] },
  invalid: [[{ kind: 'telepathy' }, 'kind'], [{ scope: ['not an address!'] }, 'scope.0']],
  listFilters: { kind: { query: { kind: 'ssh_password' }, body: { kind: 'ssh_password', community: undefined, username: 'kit', password: 'kit-pass-2' } } },
});

crudSuite(app, {
  name: 'SNMP templates', path: '/api/snmp/templates', scopes: { read: 'snmp:read', write: 'snmp:write' }, paging: false,
  create: (n) => ({ name: `kit template ${n}`, target: '127.0.0.1', credential_id: v2cCredential, oids: ['system'] }),
  update: { oids: ['ifDescr'], description: 'walks the interfaces' },
  invalid: [[{ oids: ['nope.nope'] }, 'oids.0'], [{ credential_id: undefined, community: 'public' }, 'community']],
});

crudSuite(app, {
  name: 'SSH targets', path: '/api/v1sion/ssh-targets', scopes: { read: 'v1sion:read', write: 'v1sion:write' },
  create: (n) => ({ name: `kit target ${n}`, host: '127.0.0.1', port: 2200 + n, credential_id: sshCredential, platform: 'linux' }),
  update: { name: 'kit target renamed', port: 2022, tags: ['core'] },
  invalid: [[{ port: 70000 }, 'port'], [() => ({ credential_id: v2cCredential }), 'credential_id'], [{ platform: 'amiga' }, 'platform']],
  listFilters: {
    tag: { query: { tag: 'edge' }, body: { tags: ['edge'] } },
    q: { query: { q: 'needle' }, body: { name: 'kit target needle' } },
  },
});

crudSuite(app, {
  name: 'scan profiles', path: '/api/v1sion/profiles', scopes: { read: 'v1sion:read', write: 'v1sion:write' }, paging: false,
  create: (n) => ({ name: `kit profile ${n}`, subnets: [`127.0.${n}.0/29`], schedule: { kind: 'interval', every: 15, unit: 'minutes' },
    enabled: false }),
  update: { name: 'kit profile renamed', schedule: { kind: 'cron', cron: '0 3 * * *' }, jitter_seconds: 120 },
  invalid: [[{ subnets: ['not a network'] }, 'subnets.0'], [{ schedule: { kind: 'cron', cron: 'daily' } }, 'schedule.cron'],
    [{ stages: ['no-such-stage'] }, 'stages.0']],
});

crudSuite(app, {
  name: 'webhooks', path: '/api/webhooks', scopes: { read: 'webhooks:read', write: 'webhooks:write' }, get: false, paging: false,
  create: (n) => ({ name: `kit hook ${n}`, url: `http://127.0.0.1:9/hook-${n}`, type: 'generic' }),
  update: { name: 'kit hook renamed', cooldown: 600, enabled: false },
  invalid: [[{ url: 'not a url' }, 'url'], [{ cooldown: -1 }, 'cooldown'], [{ alert_types: ['no_such_alert'] }, 'alert_types.0']],
});

crudSuite(app, {
  name: 'discovery sessions', path: '/api/v1sion/sessions', scopes: { read: 'v1sion:read', write: 'v1sion:write' },
  create: (n) => ({ name: `kit session ${n}`, subnets: ['10.77.0.0/24'], notes: 'first floor' }),
  patch: { name: 'kit session renamed' },
  invalid: [[{ name: '' }, 'name'], [{ nodes: 'all of them' }, 'nodes'], [{ colour: 'red' }, 'colour']],
  listFilters: { q: { query: { q: 'needle' }, body: { name: 'kit session needle' } } },
});

crudSuite(app, {
  name: 'status pages', path: '/api/monitors/status-pages', scopes: { read: 'monitors:read', write: 'monitors:write' }, paging: false,
  create: (n) => ({ slug: `kit-page-${n}`, title: `Kit page ${n}` }),
  update: { title: 'Kit page renamed', notice: 'Back at six', show_logo: false, groups: [{ name: 'Empty group', monitors: [] }] },
  invalid: [[{ slug: 'Kit Page' }, 'slug'], [{ title: '' }, 'title'],
    [{ groups: [{ name: 'g', monitors: [{ id: '00000000-0000-4000-8000-000000000000' }] }] }, 'groups.0.monitors.0.id']],
});
