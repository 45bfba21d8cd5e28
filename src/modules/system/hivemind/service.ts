// Pairing with a controller: pair (check the code, connect, persist), keep the connection (presence,
// monitor states, queued events, commands), unpair (clear what we retained, disconnect cleanly, forget).
// Pair and unpair run one at a time. Every failure leaves the previous pairing as it was: a new one is
// persisted only after its broker accepted the connection, and the old connection is only retired after.
import type { IPublishPacket, MqttClient } from 'mqtt';
import type { AuditEntryInput } from '../../../core/audit/types.js';
import type { AppContext } from '../../../core/context.js';
import { HttpError, conflict } from '../../../core/errors.js';
import type { Logger } from '../../../core/log.js';
import { BrokerError, BrokerLink, type LinkState } from './broker-link.js';
import { CommandRunner, type CommandReply } from './commands.js';
import { Outbox } from './outbox.js';
import { decodePairingCode, type Pairing } from './pairing-code.js';
import { isoOrNull } from '../../../core/clock.js';
import { PairingStore, type StoredPairing } from './pairing-store.js';
import { monitorStates, type MonitorState } from './probe-services.js';
import { json, offlineWill, safeLevel, topics } from './topics.js';

export interface HivemindStatus {
  paired: boolean;
  controller_url: string | null;
  probe_id: string | null;
  tls: boolean | null;
  ca_sha256: string | null;
  paired_at: string | null;
  state: LinkState;
  connected_since: string | null;
  last_error: string | null;
  last_error_at: string | null;
  next_attempt_at: string | null;
  queued: number;
  dropped: number;
}

/** Who asks for a pair or unpair (the request's actor) and how its audit entries are made. */
export interface Requester {
  actor: string | null;
  auditEntry(action: string, target: string | null, details: Record<string, unknown>, outcome?: 'success' | 'failure'): AuditEntryInput;
}

type Loaded = ReturnType<PairingStore['load']>;


export class HivemindService {
  readonly store: PairingStore;
  private readonly outbox: Outbox;
  private readonly commands: CommandRunner;
  private readonly log: Logger;
  private pairing: Loaded = null;
  private link: BrokerLink | null = null;
  private flushing = false;
  /** Monitors deleted while offline: their retained topics are cleared at the next connection. */
  private pendingClears = new Set<string>();
  private lock: Promise<unknown> = Promise.resolve();

  constructor(private readonly app: AppContext) {
    this.store = new PairingStore({ store: app.store, secretbox: app.secretbox, clock: app.clock, audit: app.audit });
    this.log = app.log.child('hivemind');
    this.outbox = new Outbox({ store: app.store, limit: () => app.config.get().hivemind.queue_limit, log: this.log });
    this.commands = new CommandRunner(app);
  }

  private settings() { return this.app.config.get().hivemind; }

  /** Serialises pair, unpair and shutdown. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.lock.then(fn);
    this.lock = next.catch(() => {});
    return next;
  }

  // ---- start and status ------------------------------------------------------------------------

  /** At start: when paired, connect out (in the background: a broker that is down is retried, never awaited). */
  resume(): void {
    this.pairing = this.store.load();
    if (!this.pairing) return;
    if (this.pairing.secret === null) {
      this.log.error('the pairing secret cannot be opened with this machine key; pair again', { probe_id: this.pairing.id });
      return;
    }
    this.link = this.newLink({ ...this.pairing, secret: this.pairing.secret });
    this.link.activate();
  }

  status(): HivemindStatus {
    const p = this.pairing;
    const l = this.link;
    const unreadable = p && p.secret === null ? 'The stored pairing secret cannot be decrypted (machine key changed): pair again' : null;
    return {
      paired: !!p,
      controller_url: p?.url ?? null,
      probe_id: p?.id ?? null,
      tls: p ? p.tls : null,
      ca_sha256: p?.ca_sha256 ?? null,
      paired_at: p?.paired_at ?? null,
      state: l?.state ?? (unreadable ? 'error' : 'disconnected'),
      connected_since: isoOrNull(l?.connectedSince ?? null),
      last_error: unreadable ?? l?.lastError ?? null,
      last_error_at: isoOrNull(l?.lastErrorAt ?? null),
      next_attempt_at: isoOrNull(l?.nextAttemptAt ?? null),
      queued: p ? this.outbox.size : 0,
      dropped: p ? this.outbox.dropped : 0,
    };
  }

  // ---- pair / unpair ---------------------------------------------------------------------------

  pair(code: string, by: Requester): Promise<HivemindStatus> {
    return this.exclusive(async () => {
      const next = decodePairingCode(code, { allowInsecure: this.settings().allow_insecure });
      const old = this.pairing;
      const oldLink = this.link;
      const sameIdentity = !!old && old.url === next.url && old.id === next.id;
      const target = { controller_url: next.url, probe_id: next.id };
      // The broker lets one connection per client id: retire ours first (cleanly: no will), or the trial would kick it.
      if (sameIdentity && oldLink) { await oldLink.close(); this.link = null; }
      const trial = this.newLink(next);
      try {
        await trial.open();
      } catch (e) {
        if (sameIdentity && oldLink) this.resume();
        const be = e instanceof BrokerError ? e : new BrokerError('protocol', String(e));
        await this.app.audit.record(by.auditEntry('hivemind.pair', next.id, { ...target, error: be.message }, 'failure')).catch(() => {});
        throw new HttpError(be.kind === 'timeout' ? 504 : 502, `broker_${be.kind}`, be.message, { extra: target });
      }
      // Read before the save, which forgets the old pairing's retained topics.
      const oldClear = old && !sameIdentity ? [topics(old.id).status, ...this.monitorTopics(old.id)] : [];
      let saved: StoredPairing;
      try {
        // Another controller's events are not this one's business: the queue is emptied with the save.
        saved = await this.store.save(next, by.actor, by.auditEntry('hivemind.pair', next.id, { ...target, ca_sha256: next.ca_sha256 }),
          sameIdentity ? undefined : (tx) => this.outbox.clearIn(tx));
      } catch (e) {
        await trial.close();
        if (sameIdentity && oldLink) this.resume();
        throw e;
      }
      // The new pairing is in force: retire the old one (its retained presence cleared where its broker answers).
      if (oldLink && !sameIdentity) {
        const ok = await oldLink.close({ clear: oldClear, endSession: true });
        if (!ok) this.log.warn('the previous controller\'s retained messages could not be cleared', { controller_url: old!.url });
      }
      if (!sameIdentity) this.pendingClears.clear();
      this.pairing = saved;
      this.link = trial;
      trial.activate();
      this.log.info('paired with a controller', target);
      return this.status();
    });
  }

  unpair(force: boolean, by: Requester): Promise<HivemindStatus & { retained_cleared: boolean }> {
    return this.exclusive(async () => {
      const p = this.pairing;
      if (!p) throw conflict('This probe is not paired with a controller', 'not_paired');
      const link = this.link;
      const target = { controller_url: p.url, probe_id: p.id };
      if (link?.state !== 'connected' && !force) {
        const entry = by.auditEntry('hivemind.unpair', p.id, { ...target, error: 'broker_unreachable' }, 'failure');
        await this.app.audit.record(entry).catch(() => {});
        throw new HttpError(409, 'broker_unreachable',
          'The broker cannot be reached, so this probe\'s retained status and monitor states cannot be cleared. ' +
          'Send {"force": true} to forget the pairing anyway (the controller then keeps the last retained messages)',
          { extra: { ...target, state: link?.state ?? 'disconnected' } });
      }
      const clear = [topics(p.id).status, ...this.monitorTopics(p.id)];
      const cleared = link ? await link.close({ clear, endSession: true }) : false;
      this.link = null;
      try {
        await this.store.remove(by.auditEntry('hivemind.unpair', p.id, { ...target, retained_cleared: cleared, forced: force }),
          (tx) => this.outbox.clearIn(tx));
      } catch (e) {
        this.resume(); // the row is still there: keep being paired
        throw e;
      }
      this.pairing = null;
      this.pendingClears.clear();
      this.log.info('unpaired from the controller', { ...target, retained_cleared: cleared });
      return { ...this.status(), retained_cleared: cleared };
    });
  }

  /** Graceful stop: a retained offline status, then a clean DISCONNECT that keeps the session; acknowledged events leave the queue. */
  shutdown(): Promise<void> {
    return this.exclusive(async () => {
      const p = this.pairing;
      const link = this.link;
      this.link = null;
      if (p && link) {
        const offline = json({ state: 'offline', reason: 'shutdown', version: this.app.version, at: this.app.clock.iso() });
        await link.close({ before: { topic: topics(p.id).status, payload: offline }, timeoutMs: 2000 });
      }
      await this.outbox.deleteAcked();
    });
  }

  // ---- what the probe publishes ----------------------------------------------------------------

  /**
   * An event at QoS 1 on netprobe/<id>/events, queued on disk (bounded) until the broker acknowledges it.
   * `id` (a UUID) is stable across resends, for the controller to drop repeats; `seq` rises by one per
   * event (a gap: events dropped from a full queue).
   */
  event(type: string, data: Record<string, unknown> & { id?: never; seq?: never }): void {
    const p = this.pairing;
    if (!p || p.secret === null) return;
    const at = this.app.clock.iso();
    this.outbox.push((id, seq) => json({ type, at, probe_id: p.id, ...data, id, seq }));
    void this.flush();
  }

  /** A monitor's retained state; while offline nothing is queued (every connection republishes all states). */
  monitorState(state: MonitorState): void {
    const p = this.pairing;
    if (!p || !this.link?.connected || !safeLevel(state.id)) return;
    const topic = topics(p.id).monitor(state.id);
    this.pendingClears.delete(topic);
    const link = this.link;
    // Recorded before it is sent: an unpair racing with it then clears it too.
    void this.store.addRetained([topic])
      .then(() => link.publish(topic, json(state), { qos: 1, retain: true }))
      .catch((e: unknown) => this.log.debug('monitor state not published', { err: String(e) }));
  }

  /** A deleted monitor: its retained state is removed (now, or at the next connection). */
  monitorGone(id: string): void {
    const p = this.pairing;
    if (!p || !safeLevel(id)) return;
    const topic = topics(p.id).monitor(id);
    if (!this.link?.connected) { this.pendingClears.add(topic); return; }
    this.link.publish(topic, Buffer.alloc(0), { qos: 1, retain: true })
      .then(() => this.store.dropRetained(topic), () => { this.pendingClears.add(topic); });
  }

  // ---- the connection ----------------------------------------------------------------------------

  private monitorTopics(id: string): string[] {
    const prefix = topics(id).prefix;
    return this.store.retainedTopics().filter((t) => t.startsWith(prefix) && t !== topics(id).status);
  }

  private newLink(p: Pairing): BrokerLink {
    const s = this.settings();
    const link: BrokerLink = new BrokerLink({
      url: p.url, host: p.host, tls: p.tls, clientId: p.id, password: p.secret, ca: p.ca,
      sessionExpirySeconds: s.session_expiry_seconds, connectTimeoutMs: s.connect_timeout_seconds * 1000,
      will: { topic: topics(p.id).status, payload: json(offlineWill(this.app.version)) },
    }, {
      onConnected: (client, sessionPresent) => this.onConnected(link, p.id, client, sessionPresent),
      onMessage: (topic, payload, packet) => this.onMessage(link, p.id, topic, payload, packet),
      reconnectMaxMs: () => this.settings().reconnect_max_seconds * 1000,
      now: () => this.app.clock.now(),
      log: this.log,
    });
    return link;
  }

  private async onConnected(link: BrokerLink, id: string, client: MqttClient, sessionPresent: boolean): Promise<void> {
    const t = topics(id);
    const granted = await client.subscribeAsync(t.commands, { qos: 1 });
    const refused = granted.find((g) => g.qos >= 128);
    if (refused) throw new BrokerError('refused', `The broker refused the subscription to ${t.commands} (reason ${refused.qos})`);
    await link.publish(t.status, json({
      state: 'online', version: this.app.version, name: this.app.config.get().probe.name,
      connected_at: this.app.clock.iso(), session_present: sessionPresent,
    }), { qos: 1, retain: true });
    // Every monitor's state, retained, so a controller that subscribes later sees the whole picture.
    const states = monitorStates(this.app).filter((m) => safeLevel(m.id));
    // Recorded before they are sent, so that an unpair clears every one of them.
    await this.store.addRetained(states.map((m) => t.monitor(m.id)));
    for (const m of states) {
      const topic = t.monitor(m.id);
      this.pendingClears.delete(topic);
      await link.publish(topic, json(m), { qos: 1, retain: true });
    }
    for (const topic of [...this.pendingClears]) {
      await link.publish(topic, Buffer.alloc(0), { qos: 1, retain: true });
      this.pendingClears.delete(topic);
      await this.store.dropRetained(topic);
    }
    void this.flush();
  }

  /** Sends queued events in order, each removed on its PUBACK; stops at the first failure (the next connection resumes). */
  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      for (;;) {
        const p = this.pairing;
        const link = this.link;
        if (!p || !link?.connected) break;
        const item = this.outbox.peek();
        if (!item) break;
        await link.publish(topics(p.id).events, item.payload, { qos: 1 });
        this.outbox.ack(item.seq);
      }
    } catch (e) {
      this.log.debug('queued events wait for the next connection', { err: String((e as Error)?.message ?? e), queued: this.outbox.size });
    } finally {
      this.flushing = false;
    }
  }

  private onMessage(link: BrokerLink, id: string, topic: string, payload: Buffer, packet: IPublishPacket): void {
    const t = topics(id);
    if (!topic.startsWith(t.commandPrefix)) return;
    // A retained command would run again at every subscription: commands are requests, never state.
    if (packet.retain) { this.log.warn('ignored a retained command', { topic }); return; }
    const name = topic.slice(t.commandPrefix.length);
    const props = packet.properties ?? {};
    const asked = typeof props.responseTopic === 'string' ? props.responseTopic : '';
    // Replies go only under our own prefix (the broker would refuse anything else anyway).
    const replyTopic = asked && asked.startsWith(t.prefix) && !/[+#]/.test(asked) ? asked : t.reply;
    void this.commands.run(id, name, payload).then((reply: CommandReply) => {
      if (link !== this.link || !link.connected) return;
      return link.publish(replyTopic, json(reply), {
        qos: 1,
        properties: { contentType: 'application/json', ...(props.correlationData ? { correlationData: props.correlationData } : {}) },
      });
    }).catch((e: unknown) => {
      this.log.warn('command reply not sent', { command: name.slice(0, 64), err: String((e as Error)?.message ?? e) });
    });
  }
}
