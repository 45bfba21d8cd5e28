// AgentSession's connected socket when connecting fails, and lookupTarget's errors. node:dgram hands a
// failed connect (a name that does not resolve, an address of the other family) to connect's callback
// only; the session must fail with it and never send on the unconnected socket (that threw
// ERR_SOCKET_BAD_PORT out of the dgram callback and ended the process). No packet leaves the process
// here: the real resolver path runs in test/integration/service-dns-failure.test.ts, in a namespace of its own.
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import dns from 'node:dns';
import { HttpError } from '../../src/core/errors.js';
import { lookupTarget, type LookupFn } from '../../src/modules/snmp/client/lookup.js';
import { AgentSession } from '../../src/modules/snmp/client/session.js';
import { resolveTarget, type ResolvedTarget } from '../../src/modules/snmp/client/target.js';

const v2c = (host: string): ResolvedTarget =>
  resolveTarget({ host, port: 161, version: 'v2c', community: 'public', timeout_ms: 500, retries: 0 });
const v3 = (host: string): ResolvedTarget =>
  resolveTarget({ host, port: 161, version: 'v3', v3: { username: 'probe', level: 'noAuthNoPriv' }, timeout_ms: 500, retries: 0 });

/** What node:dns's getaddrinfo failures look like (lib/internal/errors.js dnsException). */
function getaddrinfoError(code: string, host: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ${code} ${host}`), { code, syscall: 'getaddrinfo', hostname: host, errno: -3008 });
}

function assertProblem(e: unknown, status: number, code: string, detail: RegExp): true {
  assert.ok(e instanceof HttpError, `an HttpError, not ${String(e)}`);
  assert.equal(e.status, status);
  assert.equal(e.code, code);
  assert.match(e.message, detail);
  return true;
}

describe('AgentSession: a socket that cannot connect', () => {
  const realLookup = dns.lookup;
  afterEach(() => { dns.lookup = realLookup; });

  test('connect fails in its callback (an IPv6 address on a udp4 socket): the request fails, nothing is sent', async () => {
    const t = { ...v2c('::1'), transport: 'udp4' as const };
    const s = new AgentSession(t);
    try {
      await assert.rejects(s.get(['1.3.6.1.2.1.1.5.0']),
        (e) => assertProblem(e, 502, 'snmp_unreachable', /\[::1\]:161 cannot be reached: connect EINVAL/));
      // The session stays failed: a later request is refused at once, without a send.
      await assert.rejects(s.getNext(['1.3.6.1.2.1.1']), (e) => assertProblem(e, 502, 'snmp_unreachable', /EINVAL/));
      assert.equal(s.answered, false);
    } finally {
      s.close();
    }
  });

  for (const [code, detail] of [
    ['ENOTFOUND', /^The host name "typo-switch" does not resolve: DNS has no address for it \(ENOTFOUND\)$/],
    ['EAI_AGAIN', /^The host name "typo-switch" could not be resolved: no DNS server answered \(EAI_AGAIN\)/],
  ] as const) {
    test(`a host name whose lookup fails with ${code} in the socket's own connect: 502 snmp_host_not_found`, async () => {
      // dgram's sockets take dns.lookup when they are created; for this name it answers like getaddrinfo
      // would (the socket's implicit bind to 0.0.0.0 goes through it too, and is left alone).
      let asked = '';
      dns.lookup = ((host: string, o: number, cb: (e: Error | null, a?: string, f?: number) => void) => {
        if (host !== 'typo-switch') return realLookup(host, o, cb);
        asked = host;
        setImmediate(() => cb(getaddrinfoError(code, host)));
      }) as typeof dns.lookup;
      for (const t of [v2c('typo-switch'), v3('typo-switch')]) {
        const s = new AgentSession(t);
        try {
          // Two requests queued before the lookup ends: both fail, neither goes out unconnected.
          const both = [s.get(['1.3.6.1.2.1.1.5.0']), s.get(['1.3.6.1.2.1.1.6.0'])];
          for (const p of both) await assert.rejects(p, (e) => assertProblem(e, 502, 'snmp_host_not_found', detail));
          assert.equal(asked, 'typo-switch');
        } finally {
          s.close();
        }
      }
    });
  }

  test('closed while the lookup is still running: no send, no error afterwards', async () => {
    let answer!: () => void;
    const asked = new Promise<void>((resolve) => {
      dns.lookup = ((host: string, o: number, cb: (e: Error | null, a?: string, f?: number) => void) => {
        if (host !== 'slow-name') return realLookup(host, o, cb);
        answer = () => cb(getaddrinfoError('ENOTFOUND', host));
        resolve();
      }) as typeof dns.lookup;
    });
    const ac = new AbortController();
    const s = new AgentSession(v2c('slow-name'), ac.signal);
    const p = s.get(['1.3.6.1.2.1.1.5.0']);
    await asked;
    ac.abort(new Error('caller went away'));
    await assert.rejects(p, /caller went away/);
    answer(); // after close: dgram drops it, and the queued send never runs
    await new Promise((r) => setImmediate(r));
  });
});

describe('lookupTarget: a host name is resolved once, up front', () => {
  const found = (address: string, family: number): LookupFn => () => Promise.resolve({ address, family });
  const failing = (code: string): LookupFn => (host) => Promise.reject(getaddrinfoError(code, host));

  test('an IP address is used as it is, without a lookup', async () => {
    const never: LookupFn = () => { throw new Error('looked up'); };
    assert.equal((await lookupTarget(v2c('192.0.2.7'), undefined, never)).address, '192.0.2.7');
    const six = await lookupTarget(v2c('[2001:db8::7]'), undefined, never);
    assert.deepEqual([six.address, six.transport, six.where], ['2001:db8::7', 'udp6', '[2001:db8::7]:161']);
  });

  test('a name gets its address and the transport of its family; messages keep the name', async () => {
    const four = await lookupTarget(v2c('sw1.lab'), undefined, found('192.0.2.8', 4));
    assert.deepEqual([four.host, four.address, four.transport, four.where], ['sw1.lab', '192.0.2.8', 'udp4', 'sw1.lab:161']);
    const six = await lookupTarget(v2c('sw1.lab'), undefined, found('2001:db8::8', 6));
    assert.deepEqual([six.address, six.transport], ['2001:db8::8', 'udp6']);
  });

  test('NXDOMAIN, no DNS server, other failures and a lookup that never ends: 502 snmp_host_not_found naming the host', async () => {
    const cases: [LookupFn, string, RegExp][] = [
      [failing('ENOTFOUND'), 'ENOTFOUND', /"typo-switch" does not resolve/],
      [failing('EAI_AGAIN'), 'EAI_AGAIN', /"typo-switch" could not be resolved: no DNS server answered/],
      [failing('EAI_FAIL'), 'EAI_FAIL', /"typo-switch" could not be resolved \(EAI_FAIL\)/],
      [() => new Promise(() => {}), 'ETIMEOUT', /"typo-switch" could not be resolved: no DNS answer within 0.05 s/],
    ];
    for (const [lookup, code, detail] of cases) {
      await assert.rejects(lookupTarget(v2c('typo-switch'), undefined, lookup, 50), (e) => {
        assertProblem(e, 502, 'snmp_host_not_found', detail);
        assert.deepEqual((e as HttpError).extra, { host: 'typo-switch', dns_error: code });
        return true;
      });
    }
  });

  test('an abort ends the wait with the abort reason', async () => {
    const ac = new AbortController();
    const p = lookupTarget(v2c('slow-name'), ac.signal, () => new Promise(() => {}));
    ac.abort(new Error('client disconnected'));
    await assert.rejects(p, /client disconnected/);
  });
});
