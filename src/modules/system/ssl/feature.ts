// The system module's TLS: the HTTPS listener's certificate (self-signed at first start, uploaded PFX,
// ACME with renewal), GET /api/ssl/status and the hooks the HTTP core calls (docs/ssl.md).
import type { AppContext } from '../../../core/context.js';
import { provideTls } from '../../../core/http/app.js';
import { serviceSlot } from '../../../core/modules.js';
import { AcmeService } from './acme.js';
import { AcmeStateStore } from './acme-state.js';
import { alertOnRenewalFailure } from './alerts.js';
import { RenewalScheduler } from './renewal.js';
import { sslRoutes } from './routes.js';
import { TlsService } from './service.js';

/** Renewal looks first this long after start, when the HTTP server listens (http-01 needs it). */
const FIRST_RENEWAL_CHECK_MS = 60_000;

export interface SslParts { tls: TlsService; acme: AcmeService; state: AcmeStateStore; renewal: RenewalScheduler }
const parts = serviceSlot<SslParts>('system', 'TLS');

/** The TLS services of an app (tests). */
export const sslOf = (app: AppContext): SslParts => parts.of(app);

/** Creates the services and adds the routes of /api/ssl/*. */
export async function registerSsl(app: AppContext): Promise<void> {
  const tls = new TlsService(app);
  await tls.init();
  provideTls(app, tls);
  const state = new AcmeStateStore(app.store);
  const acme = new AcmeService(app, tls, state);
  const renewal = new RenewalScheduler(app, tls, acme, state);
  parts.set(app, { tls, acme, state, renewal });
  app.routes.add(...sslRoutes({ tls, acme, state }));
  alertOnRenewalFailure(app);
  const first = app.clock.setTimeout(() => renewal.start(), FIRST_RENEWAL_CHECK_MS);
  app.onShutdown(() => { first.cancel(); renewal.stop(); });
}
