// Typed view of the parts of the net-snmp package (CommonJS, ships no types) that the client uses.
// Loaded through createRequire so no ambient `declare module` is needed.
import { createRequire } from 'node:module';
import type dgram from 'node:dgram';

export interface NsVarbind { oid: string; type: number; value: unknown }

export type NsCallback<T> = (error: Error | null, result?: T) => void;

export interface NsSession {
  get(oids: string[], cb: NsCallback<NsVarbind[]>): void;
  getNext(oids: string[], cb: NsCallback<NsVarbind[]>): void;
  /** With one non-repeater-free OID the result is `[[vb, vb, ...]]`. */
  getBulk(oids: string[], nonRepeaters: number, maxRepetitions: number, cb: NsCallback<NsVarbind[][]>): void;
  close(): void;
  on(event: 'error' | 'close', listener: (e?: unknown) => void): void;
}

export interface NsUser {
  name: string;
  level: number;
  authProtocol?: number;
  authKey?: string;
  privProtocol?: number;
  privKey?: string;
}

export interface NsSessionOptions {
  port: number;
  retries: number;
  timeout: number;
  transport: 'udp4' | 'udp6';
  version?: number;
  /** Anything with createSocket(type) like node:dgram. */
  dgramModule?: { createSocket(type: 'udp4' | 'udp6'): dgram.Socket };
  backwardsGetNexts?: boolean;
}

type ErrorClass = new (message: string, ...rest: unknown[]) => Error;

export interface NetSnmp {
  createSession(target: string, community: string, options: NsSessionOptions): NsSession;
  createV3Session(target: string, user: NsUser, options: NsSessionOptions): NsSession;
  Version1: number;
  Version2c: number;
  Version3: number;
  ObjectType: Record<string, number>;
  ErrorStatus: Record<string, number> & Record<number, string>;
  SecurityLevel: Record<string, number>;
  AuthProtocols: Record<string, number>;
  PrivProtocols: Record<string, number>;
  ResponseInvalidCode: Record<string, number>;
  RequestTimedOutError: ErrorClass;
  RequestFailedError: ErrorClass;
  ResponseInvalidError: ErrorClass;
  RequestInvalidError: ErrorClass;
  /** Localized-key cache: keyed by protocol + plaintext password + engine ID, never emptied by the library. */
  Authentication: { authToKeyCache: Record<string, Buffer> };
}

let loaded: NetSnmp | undefined;
/**
 * net-snmp, required on first use: about 1.7 MiB of heap that a probe which only monitors never needs
 * (bench/monitors' resident-memory budget).
 */
export const snmp: NetSnmp = new Proxy({} as NetSnmp, {
  get: (_target, key) => (loaded ??= createRequire(import.meta.url)('net-snmp') as NetSnmp)[key as keyof NetSnmp],
});

/** net-snmp's RequestFailedError: the agent answered with a non-zero error-status. */
export interface NsRequestFailed extends Error { status: number }
/** net-snmp's ResponseInvalidError: a Report PDU or a response that failed checks. */
export interface NsResponseInvalid extends Error { code: number }
