// A failed renewal becomes a webhook alert: the system_health type ("the probe itself needs attention"),
// subject system/tls, critical when a week or less is left. Through the webhooks module's public index,
// and only when that module is registered in this app.
import type { AppContext } from '../../../core/context.js';
import { raiseAlert } from '../../webhooks/index.js';
import type { RenewalFailed } from './acme.js';

export function alertOnRenewalFailure(app: AppContext): void {
  app.bus.on('tls.renewal_failed', async (ev: RenewalFailed) => {
    const left = ev.days_left === null ? '' : ` The certificate in use has ${ev.days_left} day${ev.days_left === 1 ? '' : 's'} left.`;
    try {
      await raiseAlert(app, {
        type: 'system_health', subject: 'system/tls', occurred_at: ev.attempt_at,
        severity: ev.days_left !== null && ev.days_left <= 7 ? 'critical' : 'warning',
        title: `Certificate renewal failed for ${ev.domains.join(', ')}`,
        message: `The probe could not renew its TLS certificate: ${ev.error}.${left} It retries daily.`,
        details: { component: 'tls', domains: ev.domains, days_left: ev.days_left, error: ev.error },
      });
    } catch (e) {
      app.log.child('tls').warn(`renewal failure not sent as an alert: ${(e as Error).message}`);
    }
  });
}
