// Zod schemas shared inside the SNMP module: the walk endpoint and templates take the same options and
// answer with the same walk result.
import { z } from 'zod';
import { Port, TargetHost } from './targets.js';

/** Walk options shared by the endpoint and templates. */
export const WalkOptions = {
  max_repetitions: z.number().int().min(1).max(200).optional().describe('GETBULK max-repetitions (v2c/v3), default 20'),
  timeout: z.number().min(0.1).max(60).optional().describe('Seconds to wait for each answer (like snmpwalk -t), default 2'),
  retries: z.number().int().min(0).max(5).optional().describe('Retries per request, default 1'),
  max_varbinds: z.number().int().min(1).max(100_000).optional().describe('Stop after this many values (default 10,000) and say truncated'),
};
export type WalkOptionValues = { max_repetitions?: number; timeout?: number; retries?: number; max_varbinds?: number };

export const OidList = z.array(z.string().trim().min(1).max(300)).min(1).max(50)
  .describe('Subtrees to walk: numeric OIDs (1.3.6.1.2.1.1) or names from the OID store (system, ifTable, IF-MIB::ifDescr)');

export const WalkVarbind = z.object({
  oid: z.string(), name: z.string(), type: z.string(), value: z.union([z.string(), z.number(), z.null()]),
  hex: z.boolean().optional(), display: z.string(),
});
export const WalkResult = z.object({
  target: z.string(), version: z.enum(['v1', 'v2c', 'v3']), elapsed_ms: z.number(), count: z.number().int(),
  truncated: z.boolean(), varbinds: z.array(WalkVarbind),
});

// ---- walk templates ----

const TemplateFields = {
  name: z.string().trim().min(1).max(100),
  description: z.string().trim().max(1000).nullable().optional(),
  target: TargetHost,
  port: Port.nullable().optional().describe('UDP port; null or absent: the credential\'s port, else 161'),
  credential_id: z.string().trim().min(1).max(100).describe('The stored SNMP credential (UUID or short ID) the template walks with'),
  oids: OidList,
  options: z.strictObject(WalkOptions).optional(),
};
export const TemplateCreateBody = z.strictObject(TemplateFields);
export const TemplateUpdateBody = z.strictObject(TemplateFields).partial();
export type TemplateInput = z.infer<typeof TemplateCreateBody>;

export const Template = z.object({
  id: z.string(), name: z.string(), description: z.string().nullable(), target: z.string(), port: z.number().int().nullable(),
  version: z.enum(['v1', 'v2c', 'v3']), credential_id: z.string().nullable(),
  credential: z.object({ id: z.string(), short_id: z.string(), name: z.string() }).nullable()
    .describe('The credential; null when it was deleted since (runs then fail until another is set)'),
  oids: z.array(z.string()), options: z.object(WalkOptions),
  last_run: z.object({
    at: z.string(), outcome: z.enum(['success', 'failure']), count: z.number().int().nullable(),
    elapsed_ms: z.number().int().nullable(), error: z.string().nullable(),
  }).nullable(),
  created_at: z.string(), updated_at: z.string(),
});
export type TemplateOut = z.infer<typeof Template>;

// ---- device cards ----

export const ExtraOid = z.strictObject({
  oid: z.string().trim().min(1).max(300).describe('A scalar or one instance: sysUpTime.0, ifInOctets.3, 1.3.6.1.4.1.2021.10.1.3.1'),
  label: z.string().trim().min(1).max(100).optional(),
  unit: z.string().trim().min(1).max(20).optional(),
  scale: z.number().finite().optional().describe('Factor applied to a numeric value (0.1 for deci-units)'),
});
export type ExtraOidInput = z.infer<typeof ExtraOid>;

export const DeviceCardsBody = z.strictObject({
  target: TargetHost.nullable().optional().describe('Address to read; default the inventory endpoint\'s first IP'),
  port: Port.nullable().optional(),
  credential_id: z.string().trim().min(1).max(100).nullable().optional().describe('Stored SNMP credential; default the endpoint\'s'),
  vendor_key: z.string().trim().min(1).max(50).nullable().optional().describe('Pin the vendor profile; default: identified live'),
  variant: z.string().trim().min(1).max(50).nullable().optional(),
  cards: z.array(z.string().trim().min(1).max(50)).max(30).optional().describe('Card keys in display order; empty: the vendor\'s cards'),
  extra_oids: z.array(ExtraOid).max(50).optional(),
});
export type DeviceCardsInput = z.infer<typeof DeviceCardsBody>;
