// Debian's mosquitto 2.0 with its dynamic-security plugin on loopback, and a controller acting on it
// with mqtt.js, as docs/hivemind.md's recipe describes: a throwaway CA and broker certificate made with
// openssl, `mosquitto_ctrl dynsec init` for the admin (who has $CONTROL rights only), then, as that
// admin, a fleet account for the controller and one role `probe-<id>` + client `<id>` per probe
// (publishClientSend netprobe/<id>/#, subscribePattern netprobe/<id>/cmd/#). Two listeners: TLS
// (what probes use) and plain (the admin's and the controller's own connections).
//
// mosquitto runs in the foreground and is killed by stop()/close(); an exit hook kills it and removes its
// directory if a test ends early. stop() + start() restart it on the same ports with its persistence
// (sessions, retained messages, the dynsec file) kept, as a broker outage would.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt, { type IPublishPacket, type MqttClient } from 'mqtt';
import { run } from '../../src/core/exec.js';
import { encodePairingCode } from '../../src/modules/system/hivemind/pairing-code.js';
import { freePorts } from './net.js';

export const DYNSEC_PLUGIN = '/usr/lib/x86_64-linux-gnu/mosquitto_dynamic_security.so';

export interface Received { topic: string; payload: string; retain: boolean; properties: IPublishPacket['properties'] }

export interface ProbeAccount { id: string; secret: string; code: string }

export interface HivemindBroker {
  dir: string;
  tlsPort: number;
  plainPort: number;
  /** mqtts://127.0.0.1:<port> */
  tlsUrl: string;
  caPem: string;
  /** Everything the controller received on netprobe/# (its session persists across broker restarts). */
  received: Received[];
  /** Makes role probe-<id> and client <id> (pinned to client id <id>) and returns its pairing code. */
  addProbe(id?: string, opts?: { url?: string; ca?: string; caSha256?: string }): Promise<ProbeAccount>;
  /** Revokes a probe: deletes its client and its role (the broker disconnects it). */
  removeProbe(id: string): Promise<void>;
  /** Waits for the first received message (already or later) that matches. */
  waitFor(pred: (m: Received) => boolean, what: string, timeoutMs?: number): Promise<Received>;
  /** The retained messages under a filter, read by a fresh subscriber (complete: a marker published after proves it). */
  retained(filter: string): Promise<Map<string, string>>;
  /** Sends a command as the controller (MQTT 5 request/response) and waits for the reply. */
  command(id: string, name: string, payload?: unknown, opts?: { responseTopic?: string; retain?: boolean }): Promise<any>;
  /** Connects as a given account over TLS (for ACL checks). */
  connectAs(id: string, secret: string, extra?: mqtt.IClientOptions): Promise<MqttClient>;
  log(): string;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

const live = new Map<ChildProcess, string>();
let hooked = false;
function killAllOnExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', () => {
    for (const [child, dir] of live) { child.kill('SIGKILL'); rmSync(dir, { recursive: true, force: true }); }
  });
}

/** Why the broker cannot run here, or null when it can (tests skip with this reason). */
export async function brokerMissing(): Promise<string | null> {
  for (const p of ['mosquitto', 'mosquitto_ctrl', 'openssl']) {
    const r = await run('sh', ['-c', `command -v ${p}`]).catch(() => null);
    if (!r || r.code !== 0) return `${p} is not installed (apt-get install mosquitto mosquitto-clients openssl)`;
  }
  const ok = await readFile(DYNSEC_PLUGIN).then(() => true, () => false);
  return ok ? null : `${DYNSEC_PLUGIN} is missing (apt-get install mosquitto)`;
}

async function openssl(args: string[], cwd: string): Promise<void> {
  const r = await run('openssl', args, { cwd, timeoutMs: 20_000 });
  if (r.code !== 0) throw new Error(`openssl ${args[0]} failed (${r.code}): ${r.stderr.trim()}`);
}

/** A CA and a certificate for 127.0.0.1/localhost signed by it, in `dir` (ca.pem, broker.pem, broker.key). */
export async function makeCa(dir: string, name = 'ca'): Promise<{ caPem: string; caKey: string; cert: string; key: string }> {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await openssl(['req', '-x509', ...ec, '-days', '2', '-subj', `/CN=netprobe test ${name}`, '-keyout', `${name}.key`, '-out', `${name}.pem`], dir);
  await openssl(['req', '-new', ...ec, '-subj', '/CN=localhost', '-keyout', `${name}-broker.key`, '-out', `${name}-broker.csr`], dir);
  await writeFile(join(dir, `${name}.ext`), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  await openssl(['x509', '-req', '-in', `${name}-broker.csr`, '-CA', `${name}.pem`, '-CAkey', `${name}.key`, '-CAcreateserial',
    '-days', '2', '-extfile', `${name}.ext`, '-out', `${name}-broker.pem`], dir);
  const read = (f: string) => readFile(join(dir, f), 'utf8');
  return {
    caPem: await read(`${name}.pem`), caKey: await read(`${name}.key`),
    cert: await read(`${name}-broker.pem`), key: await read(`${name}-broker.key`),
  };
}

function connectAsync(url: string, opts: mqtt.IClientOptions): Promise<MqttClient> {
  return new Promise((resolve, reject) => {
    const c = mqtt.connect(url, { protocolVersion: 5, reconnectPeriod: 0, connectTimeout: 5000, ...opts });
    c.once('connect', () => { c.removeAllListeners('error'); resolve(c); });
    c.once('error', (e) => { c.end(true); reject(e); });
  });
}

export async function startHivemindBroker(): Promise<HivemindBroker> {
  killAllOnExit();
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-mqtt-'));
  const { caPem } = await makeCa(dir);
  const adminPassword = randomBytes(12).toString('base64url');
  const controllerPassword = randomBytes(12).toString('base64url');
  const dynsec = join(dir, 'dynsec.json');
  const init = await run('mosquitto_ctrl', ['dynsec', 'init', dynsec, 'admin', adminPassword], { timeoutMs: 10_000 });
  if (init.code !== 0) throw new Error(`mosquitto_ctrl dynsec init failed: ${init.stderr}`);
  const [tlsPort, plainPort] = await freePorts(2);
  const conf = [
    'per_listener_settings false',
    'allow_anonymous false',
    // Run as root, mosquitto would drop to user mosquitto, who cannot read this private directory.
    ...(process.getuid?.() === 0 ? ['user root'] : []),
    'persistence true',
    `persistence_location ${dir}/`,
    'log_dest stderr',
    'log_type error', 'log_type warning', 'log_type notice', 'log_type information',
    `plugin ${DYNSEC_PLUGIN}`,
    `plugin_opt_config_file ${dynsec}`,
    `listener ${plainPort} 127.0.0.1`,
    `listener ${tlsPort} 127.0.0.1`,
    `cafile ${join(dir, 'ca.pem')}`,
    `certfile ${join(dir, 'ca-broker.pem')}`,
    `keyfile ${join(dir, 'ca-broker.key')}`,
  ];
  const confFile = join(dir, 'mosquitto.conf');
  await writeFile(confFile, conf.join('\n') + '\n', { mode: 0o600 });

  const lines: string[] = [];
  let child: ChildProcess | null = null;
  const startBroker = async () => {
    const c = spawn('mosquitto', ['-c', confFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    live.set(c, dir);
    c.once('exit', () => live.delete(c));
    const ok = await new Promise<boolean>((resolve) => {
      let buf = '';
      const onData = (chunk: Buffer) => {
        buf += chunk.toString();
        const parts = buf.split('\n');
        buf = parts.pop()!;
        lines.push(...parts);
        if (parts.some((l) => / running$/.test(l))) resolve(true);
      };
      c.stdout!.on('data', onData);
      c.stderr!.on('data', onData);
      c.once('exit', () => resolve(false));
    });
    if (!ok) throw new Error(`mosquitto did not start:\n${lines.join('\n')}`);
    child = c;
  };
  await startBroker();
  const plainUrl = `mqtt://127.0.0.1:${plainPort}`;

  // The admin: only $CONTROL rights. Each command waits for its own response.
  const admin = async (commands: Record<string, unknown>[]) => {
    const c = await connectAsync(plainUrl, { clientId: `admin-${randomUUID()}`, username: 'admin', password: adminPassword });
    try {
      await c.subscribeAsync('$CONTROL/dynamic-security/v1/response', { qos: 1 });
      const answer = new Promise<any>((resolve) => c.once('message', (_t, p) => resolve(JSON.parse(p.toString()))));
      await c.publishAsync('$CONTROL/dynamic-security/v1', JSON.stringify({ commands }), { qos: 1 });
      const r = await answer;
      const failed = (r.responses as { command: string; error?: string }[]).filter((x) => x.error);
      if (failed.length) throw new Error(`dynsec: ${failed.map((f) => `${f.command}: ${f.error}`).join('; ')}`);
    } finally {
      await c.endAsync();
    }
  };
  const acl = (acltype: string, topic: string) => ({ acltype, topic, allow: true, priority: 0 });
  await admin([
    { command: 'createRole', rolename: 'fleet-controller', acls: [
      acl('publishClientSend', 'netprobe/#'), acl('subscribePattern', 'netprobe/#'),
      acl('publishClientSend', 'controller/#'), acl('subscribePattern', 'controller/#'),
    ] },
    { command: 'createClient', username: 'controller', password: controllerPassword, roles: [{ rolename: 'fleet-controller' }] },
  ]);

  // The controller: a persistent session, so what probes publish while it reconnects is kept for it.
  const received: Received[] = [];
  const waiters: { pred: (m: Received) => boolean; resolve: (m: Received) => void }[] = [];
  const controllerId = `controller-${randomUUID().slice(0, 8)}`;
  let controller!: MqttClient;
  const controllerUp = async () => {
    controller = mqtt.connect(plainUrl, {
      protocolVersion: 5, clientId: controllerId, username: 'controller', password: controllerPassword,
      clean: false, properties: { sessionExpiryInterval: 3600 }, reconnectPeriod: 200,
    });
    controller.on('error', () => {});
    controller.on('message', (topic, payload, packet) => {
      const m = { topic, payload: payload.toString(), retain: packet.retain, properties: packet.properties };
      received.push(m);
      for (const w of [...waiters]) if (w.pred(m)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(m); }
    });
    await new Promise<void>((resolve) => controller.once('connect', () => resolve()));
    await controller.subscribeAsync('netprobe/#', { qos: 1 });
  };
  await controllerUp();

  const broker: HivemindBroker = {
    dir, tlsPort, plainPort, tlsUrl: `mqtts://127.0.0.1:${tlsPort}`, caPem, received,
    async addProbe(id = `probe-${randomBytes(4).toString('hex')}`, opts = {}) {
      const secret = randomBytes(18).toString('base64url');
      await admin([
        { command: 'createRole', rolename: `probe-${id}`, acls: [
          acl('publishClientSend', `netprobe/${id}/#`), acl('subscribePattern', `netprobe/${id}/cmd/#`),
        ] },
        { command: 'createClient', username: id, clientid: id, password: secret, roles: [{ rolename: `probe-${id}` }] },
      ]);
      const code = encodePairingCode({ url: opts.url ?? broker.tlsUrl, id, secret, ca: opts.ca ?? caPem, ca_sha256: opts.caSha256 });
      return { id, secret, code };
    },
    async removeProbe(id) {
      await admin([{ command: 'deleteClient', username: id }, { command: 'deleteRole', rolename: `probe-${id}` }]);
    },
    waitFor(pred, what, timeoutMs = 15_000) {
      const seen = received.find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const w = { pred, resolve: (m: Received) => { clearTimeout(t); resolve(m); } };
        const t = setTimeout(() => {
          waiters.splice(waiters.indexOf(w), 1);
          reject(new Error(`timed out waiting for ${what}; received:\n${received.map((m) => `${m.topic} ${m.payload.slice(0, 200)}`).join('\n')}`));
        }, timeoutMs);
        waiters.push(w);
      });
    },
    async retained(filter) {
      const c = await connectAsync(plainUrl, { clientId: `reader-${randomUUID()}`, username: 'controller', password: controllerPassword });
      try {
        const out = new Map<string, string>();
        const marker = `controller/marker/${randomUUID()}`;
        const done = new Promise<void>((resolve) => {
          c.on('message', (topic, payload, packet) => {
            if (topic === marker) resolve();
            else if (packet.retain) out.set(topic, payload.toString());
          });
        });
        await c.subscribeAsync([filter, marker], { qos: 1 });
        // The broker queued the retained messages at SUBACK; the marker, published after, arrives after them.
        await c.publishAsync(marker, 'end', { qos: 1 });
        await done;
        return out;
      } finally {
        await c.endAsync();
      }
    },
    async command(id, name, payload = {}, opts = {}) {
      const correlation = randomBytes(8);
      const responseTopic = opts.responseTopic ?? `netprobe/${id}/reply`;
      const reply = broker.waitFor((m) => m.topic === responseTopic && !!m.properties?.correlationData &&
        Buffer.from(m.properties.correlationData).equals(correlation), `the reply to ${name}`);
      await controller.publishAsync(`netprobe/${id}/cmd/${name}`, typeof payload === 'string' ? payload : JSON.stringify(payload), {
        qos: 1, retain: !!opts.retain, properties: { responseTopic, correlationData: correlation },
      });
      return JSON.parse((await reply).payload);
    },
    connectAs(id, secret, extra = {}) {
      return connectAsync(broker.tlsUrl, { clientId: id, username: id, password: secret, ca: [caPem], rejectUnauthorized: true, ...extra });
    },
    log: () => lines.join('\n'),
    async stop() {
      const c = child;
      child = null;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      const gone = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      const t = setTimeout(() => c.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(t);
    },
    async start() {
      await startBroker();
      if (!controller.connected) await new Promise<void>((resolve) => controller.once('connect', () => resolve()));
    },
    async close() {
      controller.end(true);
      await broker.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return broker;
}
