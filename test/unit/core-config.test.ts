import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigService, ConfigSchema, type ConfigSections } from '../../src/core/config/index.js';
import { HttpError } from '../../src/core/errors.js';
import { Logger } from '../../src/core/log.js';
import { sslConfig } from '../../src/modules/system/ssl/config.js';

async function setup(fileText?: string, extraEnv: Record<string, string> = {}, sections?: ConfigSections) {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-config-'));
  const file = join(dir, 'config.yaml');
  if (fileText !== undefined) await writeFile(file, fileText);
  const lines: string[] = [];
  const log = Logger.create({ write: (l) => lines.push(l), level: 'debug' });
  const cfg = await ConfigService.load({ env: { NETPROBE_DATA_DIR: dir, ...extraEnv }, log, sections });
  return { dir, file, cfg, lines, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Runs fn, expects an HttpError, returns it. */
async function httpError(fn: () => Promise<unknown>): Promise<HttpError> {
  try {
    await fn();
  } catch (e) {
    assert.ok(e instanceof HttpError, `expected HttpError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected an error');
}

const DEFAULTS = ConfigSchema.parse({});

test('defaults from a missing file', async () => {
  const s = await setup();
  try {
    assert.deepEqual(s.cfg.get(), DEFAULTS);
    assert.equal(s.cfg.rawYaml(), '');
    assert.equal(s.cfg.get().server.port, 8080);
    assert.equal(s.cfg.get().server.host, '0.0.0.0');
    assert.equal(s.cfg.get().log.level, 'info');
    assert.equal(s.cfg.get().auth.lockout_minutes, 15);
    assert.equal(s.cfg.get().http.json_limit_kb, 1024);
    assert.equal(s.cfg.path, s.file);
    assert.equal(s.cfg.dataDir, s.dir);
  } finally { await s.cleanup(); }
});

test('defaults from an empty file and from a comments-only file', async () => {
  for (const text of ['', '# nothing here yet\n', '---\n']) {
    const s = await setup(text);
    try {
      assert.deepEqual(s.cfg.get(), DEFAULTS);
      assert.equal(s.cfg.rawYaml(), text);
      assert.deepEqual(s.cfg.issues(), []);
    } finally { await s.cleanup(); }
  }
});

test('partial sections are filled with defaults', async () => {
  const s = await setup('server:\n  port: 9090\nlog: {}\n');
  try {
    assert.equal(s.cfg.get().server.port, 9090);
    assert.equal(s.cfg.get().server.host, '0.0.0.0');
    assert.equal(s.cfg.get().log.buffer, 1000);
    assert.deepEqual(s.cfg.get().probe, DEFAULTS.probe);
  } finally { await s.cleanup(); }
});

test('get() is deep-frozen; toJson() is a mutable copy', async () => {
  const s = await setup();
  try {
    assert.ok(Object.isFrozen(s.cfg.get()));
    assert.ok(Object.isFrozen(s.cfg.get().server));
    const j = s.cfg.toJson();
    j.server.port = 1;
    assert.equal(s.cfg.toJson().server.port, 8080);
  } finally { await s.cleanup(); }
});

test('data dir and config path come from the environment', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-config-'));
  try {
    const other = join(dir, 'etc', 'netprobe.yaml');
    const cfg = await ConfigService.load({
      env: { NETPROBE_DATA_DIR: dir, NETPROBE_CONFIG: other }, log: Logger.create({ write: () => {} }),
    });
    assert.equal(cfg.path, other);
    assert.equal(cfg.dataDir, dir);
    await cfg.update({ probe: { name: 'lab' } }); // creates the missing directory
    assert.match(await readFile(other, 'utf8'), /name: lab/);

    const rel = await ConfigService.load({ env: {}, log: Logger.create({ write: () => {} }) });
    assert.equal(rel.dataDir, join(process.cwd(), 'data'));
    assert.equal(rel.path, join(process.cwd(), 'data', 'config.yaml'));
  } finally { await rm(dir, { recursive: true, force: true }); }
});

test('env overrides apply to get() but are never written to the file', async () => {
  const s = await setup('# my probe\nserver:\n  port: 8081\n', { NETPROBE_PORT: '9999' });
  try {
    assert.equal(s.cfg.get().server.port, 9999);
    assert.equal(s.cfg.toJson().server.port, 8081);

    await s.cfg.update({ log: { level: 'debug' } });
    let text = await readFile(s.file, 'utf8');
    assert.match(text, /port: 8081/);
    assert.doesNotMatch(text, /9999/);

    await s.cfg.saveJson(s.cfg.toJson());
    text = await readFile(s.file, 'utf8');
    assert.match(text, /port: 8081/);
    assert.doesNotMatch(text, /9999/);
    assert.equal(s.cfg.get().server.port, 9999);
    assert.equal(s.cfg.get().log.level, 'debug');
  } finally { await s.cleanup(); }
});

test('an invalid env override is logged and ignored', async () => {
  const s = await setup('', { NETPROBE_PORT: 'eighty' });
  try {
    assert.equal(s.cfg.get().server.port, 8080);
    assert.ok(s.lines.some((l) => l.includes('ERROR') && l.includes('NETPROBE_PORT')));
  } finally { await s.cleanup(); }
});

test('HTTPS follows NETPROBE_PORT (+363, as 8080 and 8443) unless NETPROBE_HTTPS_PORT or the file sets it', async () => {
  const https = async (file: string, env: Record<string, string>) => {
    const s = await setup(file, env, sslConfig);
    try { return { port: s.cfg.get().tls.https_port, saved: s.cfg.toJson().tls.https_port, lines: s.lines }; } finally { await s.cleanup(); }
  };
  assert.equal((await https('', {})).port, 8443, 'the default pair: 8080 and 8443');
  const moved = await https('', { NETPROBE_PORT: '9000' });
  assert.equal(moved.port, 9363);
  assert.equal(moved.saved, 8443, 'derived, never saved');
  assert.ok(moved.lines.some((l) => l.includes('HTTPS follows NETPROBE_PORT') && l.includes('9363')), 'the log says where HTTPS went');
  assert.equal((await https('', { NETPROBE_PORT: '80' })).port, 443, 'and 80 and 443');
  assert.equal((await https('', { NETPROBE_PORT: '9000', NETPROBE_HTTPS_PORT: '9443' })).port, 9443, 'the explicit variable wins');
  assert.equal((await https('', { NETPROBE_PORT: '9000', NETPROBE_HTTPS_PORT: '0' })).port, 0, 'HTTPS turned off stays off');
  assert.equal((await https('tls:\n  https_port: 8443\n', { NETPROBE_PORT: '9000' })).port, 8443, 'the file\'s key wins');
  assert.equal((await https('tls:\n  https_port: 0\n', { NETPROBE_PORT: '9000' })).port, 0);
  // The file's own server.port leaves HTTPS where an earlier build put it (an upgraded probe keeps its listener).
  assert.equal((await https('server:\n  port: 9000\n', {})).port, 8443);
  const high = await https('', { NETPROBE_PORT: '65300' });
  assert.equal(high.port, 8443, 'no port above 65535');
  assert.ok(high.lines.some((l) => l.includes('WARN') && l.includes('NETPROBE_HTTPS_PORT')));
  assert.equal((await https('', { NETPROBE_PORT: 'eighty' })).port, 8443, 'an ignored NETPROBE_PORT moves nothing');
});

test('a saved tls.https_port stops HTTPS from following NETPROBE_PORT; removing it lets it follow again', async () => {
  const s = await setup('', { NETPROBE_PORT: '9000' }, sslConfig);
  try {
    assert.equal(s.cfg.get().tls.https_port, 9363);
    await s.cfg.update({ tls: { https_port: 8444 } });
    assert.equal(s.cfg.get().tls.https_port, 8444);
    await s.cfg.saveYaml('log:\n  level: debug\n');
    assert.equal(s.cfg.get().tls.https_port, 9363);
  } finally { await s.cleanup(); }
});

test('saveYaml validation errors name the field path and write nothing', async () => {
  const original = 'server:\n  port: 8081\n';
  const s = await setup(original);
  try {
    let e = await httpError(() => s.cfg.saveYaml('server:\n  port: 70000\nlog:\n  level: loud\n'));
    assert.equal(e.status, 400);
    const paths = e.errors?.map((x) => x.path).sort();
    assert.deepEqual(paths, ['log.level', 'server.port']);
    assert.ok(e.errors?.every((x) => x.message.length > 0));

    e = await httpError(() => s.cfg.saveYaml('server:\n  port: "8080"\n'));
    assert.equal(e.errors?.[0]?.path, 'server.port');

    e = await httpError(() => s.cfg.saveYaml('server: [1\n'));
    assert.equal(e.status, 400);
    assert.match(e.errors?.[0]?.message ?? '', /YAML/);

    e = await httpError(() => s.cfg.saveYaml('- a\n- b\n'));
    assert.equal(e.status, 400);

    assert.equal(await readFile(s.file, 'utf8'), original);
    assert.equal(s.cfg.rawYaml(), original);
    assert.equal(s.cfg.get().server.port, 8081);
  } finally { await s.cleanup(); }
});

test('unknown keys are rejected on save with their path', async () => {
  const s = await setup();
  try {
    let e = await httpError(() => s.cfg.saveYaml('server:\n  prot: 9000\n'));
    assert.equal(e.status, 400);
    assert.deepEqual(e.errors?.map((x) => x.path), ['server.prot']);

    e = await httpError(() => s.cfg.saveJson({ servre: { port: 9000 } }));
    assert.deepEqual(e.errors?.map((x) => x.path), ['servre']);

    e = await httpError(() => s.cfg.update({ server: { prot: 1 } } as never));
    assert.deepEqual(e.errors?.map((x) => x.path), ['server.prot']);

    e = await httpError(() => s.cfg.saveJson({ server: { port: 0 } }));
    assert.deepEqual(e.errors?.map((x) => x.path), ['server.port']);
  } finally { await s.cleanup(); }
});

test('on load, unknown keys are warned about and bad values fall back to their defaults', async () => {
  const s = await setup('server:\n  port: 70000\n  prot: 1\n  host: 127.0.0.1\nlog:\n  level: debug\ntypo_section: {}\n');
  try {
    assert.equal(s.cfg.get().server.port, 8080);
    assert.equal(s.cfg.get().server.host, '127.0.0.1');
    assert.equal(s.cfg.get().log.level, 'debug');
    const paths = s.cfg.issues().map((i) => i.path).sort();
    assert.deepEqual(paths, ['server.port', 'server.prot', 'typo_section']);
    assert.ok(s.lines.some((l) => l.includes('WARN') && l.includes('server.prot')));
    assert.ok(s.lines.some((l) => l.includes('ERROR') && l.includes('server.port')));
  } finally { await s.cleanup(); }
});

test('invalid YAML on load starts on defaults, keeps the file, and refuses update() until fixed', async () => {
  const broken = 'server:\n  port: [8080\n';
  const s = await setup(broken);
  try {
    assert.deepEqual(s.cfg.get(), DEFAULTS);
    assert.equal(s.cfg.rawYaml(), broken);
    assert.equal(await readFile(s.file, 'utf8'), broken);
    assert.ok(s.cfg.issues().length > 0);
    assert.ok(s.lines.some((l) => l.includes('ERROR')));

    const e = await httpError(() => s.cfg.update({ server: { port: 9000 } }));
    assert.equal(e.status, 409);
    assert.equal(await readFile(s.file, 'utf8'), broken);

    await s.cfg.saveYaml('server:\n  port: 9000\n');
    assert.equal(s.cfg.get().server.port, 9000);
    assert.deepEqual(s.cfg.issues(), []);
  } finally { await s.cleanup(); }
});

test('a top level that is not a mapping loads as defaults', async () => {
  const s = await setup('just a string\n');
  try {
    assert.deepEqual(s.cfg.get(), DEFAULTS);
    assert.equal(s.cfg.issues().length, 1);
  } finally { await s.cleanup(); }
});

test('saveYaml writes the text exactly as given', async () => {
  const s = await setup();
  try {
    const text = '# Probe configuration\nserver:\n  port:   9000    # odd spacing kept\n\n\nlog: { level: warn }\n';
    const cfg = await s.cfg.saveYaml(text);
    assert.equal(cfg.server.port, 9000);
    assert.equal(cfg.log.level, 'warn');
    assert.equal(await readFile(s.file, 'utf8'), text);
    assert.equal(s.cfg.rawYaml(), text);
  } finally { await s.cleanup(); }
});

test('update() merges through the YAML document and keeps comments', async () => {
  const original = [
    '# netprobe configuration (hand-edited)',
    'server:',
    '  # the port the UI listens on',
    '  port: 8081 # not 80: no root',
    '  host: 0.0.0.0',
    '',
    '# logging',
    'log:',
    '  level: info',
    '',
  ].join('\n');
  const s = await setup(original);
  try {
    const cfg = await s.cfg.update({ server: { port: 9000 }, log: { level: 'debug' }, probe: { name: 'lab-probe' } });
    assert.equal(cfg.server.port, 9000);
    assert.equal(cfg.log.level, 'debug');
    assert.equal(cfg.probe.name, 'lab-probe');
    const text = await readFile(s.file, 'utf8');
    for (const c of ['# netprobe configuration (hand-edited)', '# the port the UI listens on', '# not 80: no root', '# logging']) {
      assert.ok(text.includes(c), `comment lost: ${c}\n${text}`);
    }
    assert.match(text, /port: 9000 # not 80: no root/);

    // null resets a key to its default by removing it from the file
    await s.cfg.update({ server: { host: null } });
    assert.doesNotMatch(await readFile(s.file, 'utf8'), /host:/);
    assert.equal(s.cfg.get().server.host, '0.0.0.0');

    // a fresh load reads back the same configuration
    const again = await ConfigService.load({ env: { NETPROBE_DATA_DIR: s.dir }, log: Logger.create({ write: () => {} }) });
    assert.deepEqual(again.get(), s.cfg.get());
  } finally { await s.cleanup(); }
});

test('saveJson replaces the configuration and keeps comments of keys that remain', async () => {
  const s = await setup('server:\n  port: 8081 # keep me\n  host: 127.0.0.1\n');
  try {
    await s.cfg.saveJson({ server: { port: 8082 } });
    const text = await readFile(s.file, 'utf8');
    assert.match(text, /port: 8082 # keep me/);
    assert.doesNotMatch(text, /host/);
    assert.equal(s.cfg.get().server.host, '0.0.0.0');
    assert.deepEqual(s.cfg.toJson(), { ...DEFAULTS, server: { ...DEFAULTS.server, port: 8082 } });
  } finally { await s.cleanup(); }
});

test('atomic save leaves no temp file and sets mode 0600', async () => {
  const s = await setup('server:\n  port: 8081\n');
  try {
    await chmod(s.file, 0o644);
    await s.cfg.update({ server: { port: 8082 } });
    await s.cfg.saveYaml('server:\n  port: 8083\n');
    await s.cfg.saveJson({ server: { port: 8084 } });
    await httpError(() => s.cfg.saveYaml('server:\n  port: -1\n'));
    assert.deepEqual(await readdir(s.dir), ['config.yaml']);
    assert.equal((await stat(s.file)).mode & 0o777, 0o600);
    assert.equal(s.cfg.get().server.port, 8084);
  } finally { await s.cleanup(); }
});

test('concurrent updates are serialised and none is lost', async () => {
  const s = await setup();
  try {
    await Promise.all([
      s.cfg.update({ server: { port: 9001 } }),
      s.cfg.update({ log: { level: 'warn' } }),
      s.cfg.update({ probe: { name: 'x' } }),
    ]);
    const again = await ConfigService.load({ env: { NETPROBE_DATA_DIR: s.dir }, log: Logger.create({ write: () => {} }) });
    assert.equal(again.get().server.port, 9001);
    assert.equal(again.get().log.level, 'warn');
    assert.equal(again.get().probe.name, 'x');
  } finally { await s.cleanup(); }
});

test('onChange reports the changed keys, and nothing when nothing changed', async () => {
  const s = await setup();
  try {
    const calls: string[][] = [];
    const off = s.cfg.onChange((cfg, keys) => { calls.push(keys); assert.equal(cfg, s.cfg.get()); });
    await s.cfg.update({ server: { port: 9001 }, log: { level: 'debug' } });
    await s.cfg.update({ server: { port: 9001 } });
    off();
    await s.cfg.update({ server: { port: 9002 } });
    assert.deepEqual(calls, [['server.port', 'log.level']]);
  } finally { await s.cleanup(); }
});

test('reload() picks up a hand edit', async () => {
  const s = await setup('server:\n  port: 8081\n');
  try {
    const seen: string[][] = [];
    s.cfg.onChange((_c, keys) => seen.push(keys));
    await writeFile(s.file, 'server:\n  port: 8082\n');
    await s.cfg.reload();
    assert.equal(s.cfg.get().server.port, 8082);
    assert.deepEqual(seen, [['server.port']]);
  } finally { await s.cleanup(); }
});
