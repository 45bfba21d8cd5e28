// acme-client, loaded on the first order only (it brings axios, @peculiar/x509 and asn1js), set up once
// with bounded retries and timeouts. Its defaults retry a transport error for about 75 s and a pending
// validation for about 15 minutes, then end in "TypeError: Cannot read properties of undefined (reading
// 'config')". So: one retry after 1 s, 10 s per request, and each request runs with the agent (trusted CA)
// and abort signal of the order it belongs to, found through AsyncLocalStorage: nothing is changed for
// other HTTPS clients in the process, and two orders of two apps in one process (tests) do not mix. The
// transport error behind the TypeError is kept so the job can say what really happened.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Agent } from 'node:https';
import { createRequire } from 'node:module';

export type AcmeLib = typeof import('acme-client');

export interface OrderContext {
  agent: Agent;
  signal: AbortSignal;
  /** The last error below HTTP (refused, reset, untrusted certificate, timeout) of this order's requests. */
  transportError?: Error;
}

export const orderContext = new AsyncLocalStorage<OrderContext>();

/** Per request; acme-client's backoff for pending validations is set per client (acme.ts). */
const REQUEST_TIMEOUT_MS = 10_000;

let loading: Promise<AcmeLib> | undefined;

export function loadAcme(): Promise<AcmeLib> {
  loading ??= (async () => {
    const mod = await import('acme-client');
    const acme = ((mod as { default?: AcmeLib }).default ?? mod) as AcmeLib;
    const instance = acme.axios;
    // The axios acme-client itself resolves (not a dependency of ours), for its HTTP adapter.
    const axios = createRequire(createRequire(import.meta.url).resolve('acme-client'))('axios') as {
      getAdapter(name: string): (config: unknown) => Promise<unknown>;
    };
    const http = axios.getAdapter('http');
    const settings = (instance.defaults as unknown as { acmeSettings: Record<string, number> }).acmeSettings;
    settings.retryMaxAttempts = 1;
    settings.retryDefaultDelay = 1;
    instance.defaults.timeout = REQUEST_TIMEOUT_MS;
    instance.interceptors.request.use((config) => {
      const ctx = orderContext.getStore();
      if (ctx) {
        config.httpsAgent = ctx.agent;
        config.signal = ctx.signal;
        config.adapter = (async (c: unknown) => {
          try { return await http(c); } catch (e) {
            if (!(e as { response?: unknown }).response) ctx.transportError = e as Error;
            throw e;
          }
        }) as unknown as typeof config.adapter;
      }
      return config;
    });
    return acme;
  })();
  loading.catch(() => { loading = undefined; });
  return loading;
}
