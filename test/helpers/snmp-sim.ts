// An SNMPv1/v2c agent serving snmprec recordings on loopback, one UDP socket (and port) per recording,
// so many simulated devices can be identified at once (or on given addresses and ports: the test lab
// runs it in its namespaces on lab addresses, UDP 161, through scripts/lab/sim.ts). GET, GETNEXT and
// GETBULK follow RFC 3416 (v2c exceptions, GETBULK non-repeaters and repetitions cut to the response
// size) and RFC 1157 for v1 (noSuchName with its error-index; Counter64 is invisible to v1, as RFC 3584
// asks). A wrong community is dropped without an answer, as most devices do. Written on our own BER
// codec (ber.ts) because net-snmp's agent serves MIB providers, not an arbitrary recorded OID list.
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { decodeInt, decodeOid, encodeOid, encodeSigned, encodeUnsigned, readAll, readTlv, seq, TAG, tlv, type Tlv } from './ber.js';
import { compareArcs, loadSnmprec, lowerBound, parseSnmprec, type RecordedVar, type Recording } from './snmprec.js';

export interface SimRecording {
  /** An snmprec file, or `text` with the recording itself. */
  file?: string;
  text?: string;
  name?: string;
  /** Default "public". */
  community?: string;
  /** Where to listen: default 127.0.0.1 and a port the OS picks (0). */
  host?: string;
  port?: number;
}

export interface SimDevice {
  name: string;
  host: string;
  port: number;
  community: string;
  recording: Recording;
  /** Requests answered so far (round trips), wrong communities not counted. */
  requests: number;
}

export interface Simulator {
  devices: SimDevice[];
  stop(): Promise<void>;
}

export interface SimOptions {
  /** Largest response in bytes; GETBULK answers are cut to it, larger GET answers are tooBig. Default 1472. */
  maxResponseBytes?: number;
}

const ERR = { noError: 0, tooBig: 1, noSuchName: 2, readOnly: 4, genErr: 5, notWritable: 17 } as const;
const V1 = 0n;
const V2C = 1n;
const TYPE_TAG: Record<string, number> = {
  Integer: TAG.Integer, OctetString: TAG.OctetString, Null: TAG.Null, OID: TAG.OID, IpAddress: TAG.IpAddress,
  Counter32: TAG.Counter32, Gauge32: TAG.Gauge32, TimeTicks: TAG.TimeTicks, Opaque: TAG.Opaque, Counter64: TAG.Counter64,
  NoSuchObject: TAG.NoSuchObject, NoSuchInstance: TAG.NoSuchInstance, EndOfMibView: TAG.EndOfMibView,
};

function encodeValue(v: RecordedVar): Buffer {
  const tag = TYPE_TAG[v.type]!;
  switch (v.type) {
    case 'Integer':
      return tlv(tag, encodeSigned(v.num!));
    case 'Counter32': case 'Gauge32': case 'TimeTicks':
      // Some recordings hold a negative 32-bit value: the agent sent those bits unsigned.
      return tlv(tag, encodeUnsigned(BigInt.asUintN(32, v.num!)));
    case 'Counter64':
      return tlv(tag, encodeUnsigned(BigInt.asUintN(64, v.num!)));
    case 'OctetString': case 'Opaque': case 'IpAddress':
      return tlv(tag, v.bytes!);
    case 'OID':
      return tlv(tag, encodeOid(v.ref!.split('.').map(Number)));
    default:
      return tlv(tag, Buffer.alloc(0));
  }
}

const varbind = (arcs: readonly number[], value: Buffer) => seq(TAG.Sequence, [tlv(TAG.OID, encodeOid(arcs)), value]);
const exception = (tag: number) => tlv(tag, Buffer.alloc(0));

interface Request { version: bigint; community: string; pduTag: number; requestId: bigint; a: bigint; b: bigint; oids: number[][] }

function decodeRequest(msg: Buffer): Request | undefined {
  try {
    const { tlv: outer } = readTlv(msg, 0);
    if (outer.tag !== TAG.Sequence) return undefined;
    const [version, community, pdu] = readAll(outer.value) as [Tlv, Tlv, Tlv];
    if (version?.tag !== TAG.Integer || community?.tag !== TAG.OctetString || !pdu) return undefined;
    const [reqId, a, b, list] = readAll(pdu.value) as [Tlv, Tlv, Tlv, Tlv];
    if (!list || list.tag !== TAG.Sequence) return undefined;
    const oids = readAll(list.value).map((vb) => {
      const [name] = readAll(vb.value);
      if (!name || name.tag !== TAG.OID) throw new Error('varbind without an OID');
      return decodeOid(name.value);
    });
    return {
      version: decodeInt(version.value), community: community.value.toString('latin1'), pduTag: pdu.tag,
      requestId: decodeInt(reqId.value), a: decodeInt(a.value), b: decodeInt(b.value), oids,
    };
  } catch {
    return undefined;
  }
}

function encodeResponse(req: Request, status: number, index: number, varbinds: Buffer[]): Buffer {
  const pdu = seq(TAG.Response, [
    tlv(TAG.Integer, encodeSigned(req.requestId)), tlv(TAG.Integer, encodeSigned(BigInt(status))),
    tlv(TAG.Integer, encodeSigned(BigInt(index))), seq(TAG.Sequence, varbinds),
  ]);
  return seq(TAG.Sequence, [tlv(TAG.Integer, encodeSigned(req.version)), tlv(TAG.OctetString, Buffer.from(req.community, 'latin1')), pdu]);
}

/** The recording as one agent answers it. */
class Agent {
  private readonly index: Map<string, RecordedVar>;
  private readonly objects = new Set<string>();

  constructor(readonly vars: RecordedVar[], private readonly maxBytes: number) {
    this.index = new Map(vars.map((v) => [v.oid, v]));
    for (const v of vars) this.objects.add(v.oid.slice(0, v.oid.lastIndexOf('.')));
  }

  /** The first variable after `arcs` that this version can carry. */
  private next(arcs: readonly number[], v1: boolean): RecordedVar | undefined {
    let i = lowerBound(this.vars, arcs);
    if (i < this.vars.length && compareArcs(this.vars[i]!.arcs, arcs) === 0) i++;
    while (i < this.vars.length && v1 && this.vars[i]!.type === 'Counter64') i++;
    return this.vars[i];
  }

  answer(req: Request): Buffer | undefined {
    const v1 = req.version === V1;
    const overhead = 48 + req.community.length;
    const echo = () => req.oids.map((o) => varbind(o, exception(TAG.Null)));
    const fits = (vbs: Buffer[]) => vbs.reduce((n, b) => n + b.length, overhead) <= this.maxBytes;

    switch (req.pduTag) {
      case TAG.GetRequest: {
        const out: Buffer[] = [];
        for (const [i, arcs] of req.oids.entries()) {
          const oid = arcs.join('.');
          const v = this.index.get(oid);
          if (v && !(v1 && v.type === 'Counter64')) out.push(varbind(arcs, encodeValue(v)));
          else if (v1) return encodeResponse(req, ERR.noSuchName, i + 1, echo());
          else out.push(varbind(arcs, exception(this.objects.has(oid.slice(0, oid.lastIndexOf('.'))) ? TAG.NoSuchInstance : TAG.NoSuchObject)));
        }
        return fits(out) ? encodeResponse(req, 0, 0, out) : encodeResponse(req, ERR.tooBig, 0, []);
      }
      case TAG.GetNextRequest: {
        const out: Buffer[] = [];
        for (const [i, arcs] of req.oids.entries()) {
          const v = this.next(arcs, v1);
          if (v) out.push(varbind(v.arcs, encodeValue(v)));
          else if (v1) return encodeResponse(req, ERR.noSuchName, i + 1, echo());
          else out.push(varbind(arcs, exception(TAG.EndOfMibView)));
        }
        return fits(out) ? encodeResponse(req, 0, 0, out) : encodeResponse(req, ERR.tooBig, 0, []);
      }
      case TAG.GetBulkRequest: {
        if (v1) return undefined;
        const nonRepeaters = Math.min(Math.max(Number(req.a), 0), req.oids.length);
        const repetitions = Math.max(Number(req.b), 0);
        const out: Buffer[] = [];
        for (const arcs of req.oids.slice(0, nonRepeaters)) {
          const v = this.next(arcs, false);
          out.push(v ? varbind(v.arcs, encodeValue(v)) : varbind(arcs, exception(TAG.EndOfMibView)));
        }
        if (!fits(out)) return encodeResponse(req, ERR.tooBig, 0, []);
        let size = out.reduce((n, b) => n + b.length, overhead);
        let cursors = req.oids.slice(nonRepeaters);
        for (let r = 0; r < repetitions && cursors.length; r++) {
          let allEnded = true;
          const row: Buffer[] = [];
          const nextCursors = cursors.map((arcs) => {
            const v = this.next(arcs, false);
            if (v) allEnded = false;
            row.push(v ? varbind(v.arcs, encodeValue(v)) : varbind(arcs, exception(TAG.EndOfMibView)));
            return v ? v.arcs : arcs;
          });
          for (const b of row) {
            if (size + b.length > this.maxBytes) return encodeResponse(req, 0, 0, out);
            out.push(b);
            size += b.length;
          }
          if (allEnded) break;
          cursors = nextCursors;
        }
        return encodeResponse(req, 0, 0, out);
      }
      case TAG.SetRequest:
        return v1 ? encodeResponse(req, ERR.readOnly, 1, echo()) : encodeResponse(req, ERR.notWritable, 1, echo());
      default:
        return undefined;
    }
  }
}

async function serve(rec: Recording, community: string, maxBytes: number, host: string, port: number):
Promise<{ device: SimDevice; socket: Socket }> {
  let agent = new Agent(rec.vars, maxBytes);
  const socket = createSocket('udp4');
  const device: SimDevice = { name: rec.name, host, port, community, recording: rec, requests: 0 };
  socket.on('message', (msg, rinfo) => {
    const req = decodeRequest(msg);
    if (!req || (req.version !== V1 && req.version !== V2C) || req.community !== community) return;
    // A test that gives the recording new vars (if-sim.ts: counters that move) is served them from now on.
    if (agent.vars !== rec.vars) agent = new Agent(rec.vars, maxBytes);
    const res = agent.answer(req);
    if (!res) return;
    device.requests++;
    socket.send(res, rinfo.port, rinfo.address);
  });
  socket.bind(port, host);
  await once(socket, 'listening'); // rejects with the bind error (an address not here, a port in use)
  device.port = (socket.address() as AddressInfo).port;
  return { device, socket };
}

/** Starts one simulated agent per recording, by default on 127.0.0.1, each on its own OS-assigned port. */
export async function startSimulator(recordings: SimRecording[], opts: SimOptions = {}): Promise<Simulator> {
  const maxBytes = opts.maxResponseBytes ?? 1472;
  const started = await Promise.all(recordings.map((r) => {
    if (!r.file && r.text === undefined) throw new Error('a simulated device needs a file or text');
    const rec = r.file ? loadSnmprec(r.file) : parseSnmprec(r.text!, r.name);
    if (r.name) rec.name = r.name;
    return serve(rec, r.community ?? 'public', maxBytes, r.host ?? '127.0.0.1', r.port ?? 0);
  }));
  return {
    devices: started.map((s) => s.device),
    async stop() {
      await Promise.all(started.map((s) => new Promise<void>((resolve) => s.socket.close(() => resolve()))));
    },
  };
}
