// SNMP value check: one GET of one OID (numeric, or a name from the SNMP module's OID store) with a stored
// SNMP credential, and a comparison that says whether the value is healthy ("greater than 50" for a UPS
// battery). A number is the check's measurement `value`, kept and charted like a response time.
//
// The credential is only referred to (`credential_id`): its secret is read by the SNMP module at check
// time through the path every SNMP entry point takes (targets.ts, TargetResolver.reach), which refuses a
// host outside the credential's scope or discovery's allowed ranges before anything is sent. The check
// reaches the SNMP module through ctx.services.snmp (checks/services.ts).
import net from 'node:net';
import { z } from 'zod';
import { HttpError } from '../../../core/errors.js';
import type { CheckContext, CheckDefinition, CheckServices, RunReport } from './types.js';
import type { SnmpCheckService, SnmpReading } from './services.js';
import { hostProblem, parseHostPort } from './net.js';

export const COMPARISONS = ['any', 'greater', 'less', 'equal', 'not_equal', 'contains', 'changed'] as const;
export type Comparison = typeof COMPARISONS[number];
/** The comparisons that take a value to compare with, and those of them that need a number. */
const WITH_VALUE: readonly Comparison[] = ['greater', 'less', 'equal', 'not_equal', 'contains'];
const NUMERIC: readonly Comparison[] = ['greater', 'less'];

/** A name as the OID store writes them ("sysUpTime.0", "UPS-MIB::upsBatteryCapacity.0") or a numeric OID. */
const OID_TEXT = /^(?:\.?\d+(?:\.\d+)+|(?:[A-Za-z][\w-]*::)?[A-Za-z][\w-]*(?:\.\d+)*)$/;

export const settings = z.object({
  credential_id: z.string().trim().min(1).max(100).optional()
    .meta({ title: 'Stored SNMP credential', 'x-section': 'Agent',
      description: 'Required: an SNMP credential of the inventory (its ID, e.g. CR-3, or UUID). Its community or v3 keys ' +
        'stay in the vault and go only to the hosts its scope allows; an administrator sets the scope.' }),
  oid: z.string().trim().min(1).max(256).regex(OID_TEXT, 'a numeric OID (1.3.6.1.2.1.1.3.0) or a name (sysUpTime.0)').optional()
    .meta({ title: 'OID', examples: ['upsBatteryCapacity.0'],
      description: 'Required: one instance, numeric or by name from the OID store (sysUpTime.0, UPS-MIB::upsBatteryCapacity.0).' }),
  compare: z.enum(COMPARISONS).default('any')
    .meta({ title: 'Up when the value', 'x-section': 'Value',
      'x-enum-titles': { any: 'is read', greater: 'is greater than', less: 'is less than', equal: 'equals', not_equal: 'does not equal',
        contains: 'contains', changed: 'has not changed since the last check' } }),
  value: z.string().min(1).max(256).optional()
    .meta({ title: 'Compared with', 'x-visible-when': { properties: { compare: { enum: [...WITH_VALUE] } } },
      description: 'A number for greater and less; for equals, a number, a text, or an enumeration\'s label (established).' }),
  unit: z.string().max(16).default('')
    .meta({ title: 'Unit', examples: ['%'], description: 'Shown after the value in the chart and messages: %, °C, pages. Optional.' }),
}).strict();

export type SnmpSettings = z.output<typeof settings>;

/** host, host:port, [IPv6]:port or a bare IPv6 address: the agent (UDP port 161 unless given or the credential's). */
export function agentOf(target: string): { host: string; port?: number } | null {
  if (net.isIP(target)) return { host: target };
  const hp = parseHostPort(target);
  if (hp) return hp;
  if (/[:[\]]/.test(target)) return null;
  return { host: target };
}

export function validateTarget(target: string): string | null {
  const a = agentOf(target);
  if (!a) return 'expected a host, host:port or [IPv6]:port (a port 1-65535)';
  return hostProblem(a.host);
}

export function validateWithSettings(_target: string, s: SnmpSettings): { path: string; message: string } | null {
  if (!s.credential_id) return { path: 'credential_id', message: 'required: the stored SNMP credential to read with' };
  if (!s.oid) return { path: 'oid', message: 'required: the OID to read' };
  if (WITH_VALUE.includes(s.compare) && s.value === undefined) return { path: 'value', message: `required to compare (${s.compare})` };
  if (NUMERIC.includes(s.compare) && !isNumber(s.value!)) return { path: 'value', message: `a number is needed for ${s.compare}` };
  return null;
}

const isNumber = (s: string): boolean => s.trim() !== '' && Number.isFinite(Number(s));

async function checkReferences(target: string, s: SnmpSettings, services: CheckServices): Promise<void> {
  const snmp = services.snmp;
  if (!snmp) throw new HttpError(400, 'validation_failed', 'SNMP checks need the SNMP module, which is not part of this service');
  snmp.resolveOid(s.oid!, 'settings.oid');
  await snmp.checkReference(agentOf(target)!.host, s.credential_id!, 'settings.credential_id');
}

// ---- reading and comparing ------------------------------------------------------------------------------

const NUMERIC_TYPES = new Set(['Integer', 'Gauge32', 'Counter32', 'Counter64', 'TimeTicks']);

/** The value as a number for the numeric types (Counter64 arrives as a decimal string), else null. */
export function numberOf(r: Pick<SnmpReading, 'type' | 'value'>): number | null {
  if (!NUMERIC_TYPES.has(r.type) || r.value === null) return null;
  const n = Number(r.value);
  return Number.isFinite(n) ? n : null;
}

/** The value as text: the number, the text of an OctetString, the dotted OID or address. */
const textOf = (r: SnmpReading): string => (r.value === null ? '' : String(r.value));

/** Whether `expected` names this value: as its number or text, its display, or an enumeration's label ("established(6)"). */
function equals(r: SnmpReading, expected: string): boolean {
  const n = numberOf(r);
  if (n !== null && isNumber(expected)) return n === Number(expected);
  if (textOf(r) === expected || r.display === expected) return true;
  const label = /^(.+)\((-?\d+)\)$/.exec(r.display)?.[1];
  return label !== undefined && label === expected;
}

/** The comparison's verdict and its words: "87 %, greater than 50". */
export function compare(r: SnmpReading, s: Pick<SnmpSettings, 'compare' | 'value'>, previous: unknown):
  { up: boolean; why: string } {
  const want = s.value ?? '';
  const n = numberOf(r);
  switch (s.compare) {
    case 'any': return { up: true, why: '' };
    case 'greater': case 'less': {
      if (n === null) return { up: false, why: `not a number (${r.type}), cannot be ${s.compare} than ${want}` };
      const up = s.compare === 'greater' ? n > Number(want) : n < Number(want);
      return { up, why: `${up ? '' : 'not '}${s.compare} than ${want}` };
    }
    case 'equal': { const up = equals(r, want); return { up, why: up ? `equals ${want}` : `expected ${want}` }; }
    case 'not_equal': { const up = !equals(r, want); return { up, why: up ? `not ${want}` : `equals ${want}` }; }
    case 'contains': {
      const up = textOf(r).includes(want) || r.display.includes(want);
      return { up, why: `${up ? 'contains' : 'does not contain'} "${want}"` };
    }
    case 'changed': {
      const now = n ?? textOf(r);
      if (previous === undefined) return { up: true, why: 'first reading (a change shows from the next check)' };
      if (previous === now) return { up: true, why: 'unchanged' };
      return { up: false, why: `changed from ${String(previous)}` };
    }
  }
}

const shown = (r: SnmpReading, unit: string): string => {
  const n = numberOf(r);
  const text = n !== null && r.type !== 'TimeTicks' && !r.display.endsWith(')') ? String(n) : r.display;
  const quoted = r.type === 'OctetString' ? JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text) : text;
  return unit ? `${quoted} ${unit}` : quoted;
};

export async function run(target: string, s: SnmpSettings, ctx: CheckContext): Promise<RunReport> {
  const agent = agentOf(target);
  const down = (message: string, details: Record<string, unknown> = {}): RunReport =>
    ({ status: 'down', response_time_ms: null, message, details });
  if (!agent) return down(validateTarget(target) ?? 'invalid target');
  const snmp: SnmpCheckService | undefined = ctx.services?.snmp;
  if (!snmp) return down('SNMP is not available in this service (the SNMP module is not registered)');
  let reading: SnmpReading;
  try {
    const oid = snmp.resolveOid(s.oid!, 'settings.oid');
    // Half the timeout per attempt: a silent agent is then asked once more (the client's probe tells a
    // wrong community from a dead agent) and the check still ends within its timeout.
    reading = await snmp.get({ host: agent.host, port: agent.port, credential_id: s.credential_id!, oid,
      timeout_ms: Math.max(200, Math.floor(ctx.timeout * 1000 / 2)) });
  } catch (e) {
    if (!(e instanceof HttpError)) throw e;
    // Refusals (scope, allowed ranges, a locked vault) and the client's failures, as the SNMP pages word them.
    const fields = e.errors?.length ? `: ${e.errors.map((f) => f.message).join('; ')}` : '';
    return down(`${e.message}${fields}`, { code: e.code, ...(e.status === 403 ? { refused: true } : {}) });
  }
  const details: Record<string, unknown> = { oid: reading.oid, name: reading.name, type: reading.type, value: reading.value,
    display: reading.display };
  const rt = Math.round(reading.elapsed_ms * 100) / 100;
  if (reading.value === null) {
    const what = reading.type === 'NoSuchInstance' ? 'no such instance' : reading.type === 'NoSuchObject' ? 'no such object' : reading.type;
    return { status: 'down', response_time_ms: rt, message: `${reading.name}: ${what} at ${agent.host}`, details };
  }
  const n = numberOf(reading);
  const previous = ctx.memory?.previous;
  const verdict = compare(reading, s, previous);
  if (s.compare === 'changed') {
    ctx.memory?.keep(n ?? textOf(reading));
    if (previous !== undefined) details.previous = previous;
  }
  const message = `${reading.name} = ${shown(reading, s.unit)}${verdict.why ? `, ${verdict.why}` : ''}`;
  return { status: verdict.up ? 'up' : 'down', response_time_ms: rt, message, details,
    ...(n !== null ? { measurements: { value: n } } : {}) };
}

/** The check type as the monitor service sees it (checks/index.ts, CHECKS). */
export const check: CheckDefinition<SnmpSettings> = {
  label: 'SNMP value', icon: 'dashboard', hint: 'Read one OID and compare it',
  target: { title: 'Agent', placeholder: 'ups.lan',
    description: 'The SNMP agent: a host or IP address, with :port when it is not 161 (or the credential\'s port).' },
  settings, validateTarget, validateWithSettings, checkReferences, run,
  measurements: [{ name: 'value', unit: '', label: 'Value read', unitSetting: 'unit' }],
  host: (target) => agentOf(target)?.host ?? null,
};
