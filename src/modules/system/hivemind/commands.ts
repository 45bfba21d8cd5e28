// Commands from the controller (netprobe/<id>/cmd/<name>, MQTT 5 request/response): a short allow-list,
// each checked like an API request, run one at a time, and audited as the controller's action
// (actor `controller:<id>`). Anything else is answered with an error and audited as refused.
//
//   ping                                   -> {pong: true, probe_id, version, at}
//   check_monitor {monitor_id}              -> {monitor_id, status, response_time_ms, message}
//   scan {subnet, snmp_enabled?}            -> {job_id, subnet}; only inside hivemind.allowed_scan_ranges
import { z } from 'zod';
import type { AppContext } from '../../../core/context.js';
import { HttpError } from '../../../core/errors.js';
import { parseCidr, type Cidr } from '../../../core/ip.js';
import { checkMonitorNow, controllerActor, startScan } from './probe-services.js';

export const COMMANDS = ['ping', 'check_monitor', 'scan'] as const;
export type CommandName = (typeof COMMANDS)[number];

/** Largest command payload read (bytes); a bigger one is refused unread. */
export const MAX_COMMAND_BYTES = 16 * 1024;
/** Commands waiting beyond the one running; more are refused as busy rather than piled up. */
const MAX_PENDING = 16;

const Ping = z.strictObject({}).optional();
const CheckMonitor = z.strictObject({ monitor_id: z.uuid() });
const Scan = z.strictObject({
  subnet: z.string().trim().min(1).max(64),
  snmp_enabled: z.boolean().optional(),
});

export interface CommandReply {
  ok: boolean;
  command: string;
  result?: unknown;
  error?: { code: string; message: string };
}

class CommandError extends Error {
  constructor(readonly code: string, message: string) { super(message); }
}

/** Whether `subnet` lies entirely inside one of the configured ranges (same family). */
export function withinAllowed(subnet: Cidr, allowed: readonly string[]): boolean {
  return allowed.some((r) => {
    const c = parseCidr(r, { loose: true });
    return c.ok && c.cidr.family === subnet.family && c.cidr.first <= subnet.first && subnet.last <= c.cidr.last;
  });
}

function parse<T extends z.ZodType>(schema: T, payload: unknown): z.infer<T> {
  const r = schema.safeParse(payload);
  if (!r.success) {
    const first = r.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || 'payload'}: ${i.message}`).join('; ');
    throw new CommandError('invalid_payload', `Invalid payload: ${first}`);
  }
  return r.data;
}

export class CommandRunner {
  private chain: Promise<unknown> = Promise.resolve();
  private pending = 0;

  constructor(private readonly app: AppContext) {}

  /** Runs one command (queued behind the one running) and returns the reply to publish. */
  run(probeId: string, name: string, raw: Buffer): Promise<CommandReply> {
    if (this.pending > MAX_PENDING) {
      return this.refuse(probeId, name, 'busy', `${this.pending} commands are waiting; try again later`);
    }
    this.pending++;
    const next = this.chain.then(() => this.execute(probeId, name, raw)).finally(() => { this.pending--; });
    this.chain = next.catch(() => {});
    return next;
  }

  private async execute(probeId: string, name: string, raw: Buffer): Promise<CommandReply> {
    if (!(COMMANDS as readonly string[]).includes(name)) {
      return this.refuse(probeId, name, 'unknown_command', `Unknown command; this probe answers ${COMMANDS.join(', ')}`);
    }
    const by = controllerActor(this.app, probeId);
    const command = name as CommandName;
    let details: Record<string, unknown> = {};
    try {
      let payload: unknown = {};
      if (raw.length > MAX_COMMAND_BYTES) throw new CommandError('payload_too_large', `The payload is over ${MAX_COMMAND_BYTES} bytes`);
      if (raw.length) {
        try { payload = JSON.parse(raw.toString('utf8')); } catch { throw new CommandError('invalid_payload', 'The payload is not JSON'); }
      }
      let result: unknown;
      if (command === 'ping') {
        parse(Ping, payload);
        result = { pong: true, probe_id: probeId, version: this.app.version, at: this.app.clock.iso() };
      } else if (command === 'check_monitor') {
        const p = parse(CheckMonitor, payload);
        details = { monitor_id: p.monitor_id };
        result = { monitor_id: p.monitor_id, ...(await checkMonitorNow(this.app, p.monitor_id, by)) };
      } else {
        const p = parse(Scan, payload);
        details = { subnet: p.subnet };
        const c = parseCidr(p.subnet);
        if (!c.ok) throw new CommandError('invalid_payload', `Invalid payload: subnet: ${c.message}`);
        const allowed = this.app.config.get().hivemind.allowed_scan_ranges;
        if (!withinAllowed(c.cidr, allowed)) {
          throw new CommandError('range_not_allowed', allowed.length
            ? `${c.text} is outside the ranges the controller may scan (hivemind.allowed_scan_ranges)`
            : 'This probe accepts no scan from the controller: hivemind.allowed_scan_ranges is empty');
        }
        details = { subnet: c.text };
        const snmp = p.snmp_enabled === undefined ? {} : { snmp_enabled: p.snmp_enabled };
        result = await startScan(this.app, { subnet: c.text, ...snmp }, by);
      }
      await this.app.audit.record({ ...by.auditEntry('hivemind.command', command, { command, ...details }), outcome: 'success' });
      return { ok: true, command, result };
    } catch (e) {
      const known = e instanceof CommandError || e instanceof HttpError;
      const code = known ? e.code : 'failed';
      const message = known ? e.message : 'The command failed on the probe';
      if (!known) this.app.log.child('hivemind').error('command failed', { command, err: e as Error });
      const entry = by.auditEntry('hivemind.command', command, { command, ...details, error: code });
      await this.app.audit.record({ ...entry, outcome: 'failure' }).catch(() => {});
      return { ok: false, command, error: { code, message } };
    }
  }

  private async refuse(probeId: string, name: string, code: string, message: string): Promise<CommandReply> {
    const by = controllerActor(this.app, probeId);
    // The name is the controller's text: cut and kept to a topic level's characters for the audit log.
    const shown = name.slice(0, 64).replace(/[^A-Za-z0-9_.-]/g, '?');
    const entry = by.auditEntry('hivemind.command_refused', shown, { command: shown, reason: code });
    await this.app.audit.record({ ...entry, outcome: 'failure' }).catch(() => {});
    return { ok: false, command: shown, error: { code, message } };
  }
}
