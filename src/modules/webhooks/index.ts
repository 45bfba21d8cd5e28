// The webhooks module: alerts built from bus events (with alert dependencies and certificate-expiry
// thresholds), per-webhook cooldown, a durable outbox delivered with retries, the providers in
// providers/ (PROVIDERS), the webhook API, what became of alerts (activity.ts) and the debug endpoints.
// See docs/webhooks.md.
import type { AppContext, Module } from '../../core/context.js';
import { serviceSlot } from '../../core/modules.js';
import { webhooksConfig } from './config.js';
import { maintenanceForEverything, monitorGlances, monitorsServiceOf } from '../monitors/index.js';
import type { Alert, AlertInput } from './alert.js';
import { WebhookActivity } from './activity.js';
import { Alerter } from './alerter.js';
import { alertRoutes } from './alerts/routes.js';
import { deliveryRoutes } from './deliveries/routes.js';
import { webhookDevRoutes } from './dev/routes.js';
import { Dispatcher } from './dispatcher.js';
import { Outbox } from './outbox.js';
import { webhookRoutes } from './routes.js';
import { webhookMigrations } from './migrations.js';
import { moveUrlOptions, sealStoredWebhooks } from './secrets.js';
import { outboundSender } from './outbound.js';
import { outgoingEmailOf } from '../system/contracts.js';
import { RaisedGate } from './raised-gate.js';
import { WebhookService } from './service.js';

export { registerAlertType, alertTypes, type AlertTypeDef, type Severity } from './alert-types.js';
export type { Alert, AlertInput } from './alert.js';
/** How long an outage lasted, for a person ("2 h 5 min"): alerts of other modules say it the same way. */
export { humanDuration } from './alert.js';

interface Parts { service: WebhookService; alerter: Alerter; dispatcher: Dispatcher }
const parts = serviceSlot<Parts>('webhooks', 'Alerting');

/** The module's parts for an app (tests, and other modules through raiseAlert). */
export const webhooksOf = (app: AppContext): Parts => parts.of(app);

/**
 * Raises an alert of a registered type (see registerAlertType): it goes to every enabled webhook
 * subscribed to the type, under their cooldown, through the outbox. Resolves once it is queued.
 */
export async function raiseAlert(app: AppContext, input: AlertInput): Promise<Alert> {
  return parts.of(app).alerter.raise(input);
}

/** Whether this app tells anybody: a module that only `uses` webhooks raises its alerts when it does. */
export const alertingIn = (app: AppContext): boolean => parts.find(app) !== undefined;

export const webhooksModule: Module = {
  name: 'webhooks',
  config: { webhooks: webhooksConfig },
  // Alerts are built from monitor events and follow the monitors' dependency graph; e-mail goes out
  // through the system module's SMTP settings.
  needs: ['monitors', 'system'],
  migrations: webhookMigrations,
  async register(app: AppContext) {
    await sealStoredWebhooks(app); // secrets an earlier build stored in clear
    await moveUrlOptions(app); // options an earlier build packed into URLs
    const outbox = new Outbox(app);
    const send = outboundSender(() => outgoingEmailOf(app)); // e-mail through the system module's SMTP settings
    const dispatcher = new Dispatcher(app, outbox, send);
    const service = new WebhookService(app, outbox, send, () => dispatcher.kick(), () => outgoingEmailOf(app).configured(),
      () => new Set(monitorGlances(app).map((m) => m.id))); // a channel's chosen monitors, checked through the monitors' contract
    // Other modules' alerts are held by a maintenance window for every monitor (raised-gate.ts).
    const alerter = new Alerter(app, outbox, dispatcher, () => monitorsServiceOf(app),
      new RaisedGate((at) => maintenanceForEverything(app, at)));
    alerter.subscribe();
    parts.set(app, { service, alerter, dispatcher });
    const activity = new WebhookActivity(app);
    app.routes.add(...webhookRoutes(service), ...alertRoutes(activity), ...deliveryRoutes(activity), ...webhookDevRoutes(activity));
  },
  start(app: AppContext) {
    const p = parts.of(app);
    p.dispatcher.start();
    app.onShutdown(async () => {
      await p.alerter.idle();
      await p.dispatcher.stop();
    });
  },
};
