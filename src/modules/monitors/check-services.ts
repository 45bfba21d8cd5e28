// What other modules lend the check types (checks/services.ts), by app: the SNMP module provides its part
// when it registers (provideCheckServices, exported by monitors/index.ts), and the monitor service hands
// it to every check (CheckContext.services) and to the save-time checks of what settings refer to. The
// monitors module imports none of the lenders: they come to it.
import type { AppContext } from '../../core/context.js';
import type { CheckServices } from './checks/services.js';

const lent = new WeakMap<AppContext, CheckServices>();

/** Another module lends check types a service (the SNMP module: reading an OID with a stored credential). */
export function provideCheckServices(app: AppContext, services: CheckServices): void {
  lent.set(app, { ...lent.get(app), ...services });
}

/** What is lent in this app; empty when no lending module is registered. */
export function checkServicesOf(app: AppContext): CheckServices {
  return lent.get(app) ?? {};
}
