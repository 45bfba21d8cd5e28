// Each live host's advertised name, services and kind from what `advertised-ask` heard from its address
// (scan/advertised/facts.ts); its UPnP description read over HTTP when its SSDP answer points at itself
// (plain HTTP, that same address, no redirect, 1.5 s, 64 KiB at most).
import { fetchDescription, upnpOf } from '../advertised/ask.js';
import { advertisedFacts } from '../advertised/facts.js';
import { descriptionUrl } from '../advertised/ssdp.js';
import type { UpnpFacts } from '../result.js';
import type { Stage } from './types.js';

export const advertised: Stage = {
  name: 'advertised', phase: 'identify', needs: ['hosts', 'links', 'advertised'], adds: { host: ['advertised'] }, weight: 2,
  perHost: ({ state, signal }) => ({
    async each(h) {
      const heard = state.work.advertised;
      if (!heard) return;
      const answers = heard.ssdp.get(h.ip);
      let upnp: UpnpFacts | null = null;
      if (answers?.length) {
        const u = upnpOf(answers);
        const url = descriptionUrl(u.location, h.ip);
        const d = url ? await fetchDescription(url, signal) : null;
        upnp = { ...u, friendly_name: d?.friendly_name ?? null, manufacturer: d?.manufacturer ?? null, model_name: d?.model_name ?? null,
          model_number: d?.model_number ?? null, serial: d?.serial ?? null };
        if (d?.device_type && !upnp.device_types.includes(d.device_type)) upnp.device_types.push(d.device_type);
      }
      h.advertised = advertisedFacts(heard.mdns.facts(h.ip), upnp);
    },
  }),
};
