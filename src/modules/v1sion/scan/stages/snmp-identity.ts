// Each host that answered the SNMP sweep: vendor profile, model, OS, version, serial with the credential
// that answered (scan/identify.ts). An identified agent is handed to the neighbours phase; where each
// stored credential worked or failed is written once, after every host.
import { recordCredentialUse } from '../../../brain/index.js';
import { identifyHost, type CredentialUseRecord } from '../identify.js';
import type { Stage } from './types.js';

export const snmpIdentity: Stage = {
  name: 'snmp-identity', phase: 'identify', needs: ['hosts', 'credentials', 'snmp_answers'],
  adds: { products: ['agents'], host: ['snmp'] }, weight: 20,
  perHost: ({ app, plan, state, settings, signal }) => {
    const uses: CredentialUseRecord[] = [];
    return {
      async each(h) {
        const r = await identifyHost(app, h.ip, state.work.answers.get(h.ip), plan.credentials, settings.snmpTiming, signal);
        h.snmp = r.facts;
        uses.push(...r.uses);
        if (r.credential && r.facts?.vendor_key) state.work.agents.push({ ip: h.ip, credential: r.credential });
      },
      done() {
        if (!uses.length) return;
        void app.store.write((tx) => {
          for (const u of uses) {
            const use = { target: u.target, protocol: 'snmp', outcome: u.outcome, detail: u.detail };
            recordCredentialUse(tx, u.credentialId, use, app.clock.now());
          }
        }, 'sync').catch((e: unknown) => app.log.warn('could not record credential uses', { err: e }));
      },
    };
  },
};
