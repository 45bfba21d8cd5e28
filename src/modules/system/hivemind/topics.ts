// The probe's topics on the controller's broker. Everything lives under netprobe/<id>/, the only
// prefix the broker lets this probe publish on (its role: publishClientSend netprobe/<id>/#,
// subscribePattern netprobe/<id>/cmd/#). Pure: names and payloads only.

export const topics = (id: string) => ({
  /** Retained presence: {state: online|offline, ...}; the last will sets offline. */
  status: `netprobe/${id}/status`,
  /** Retained state of one monitor. */
  monitor: (monitorId: string) => `netprobe/${id}/monitors/${monitorId}`,
  /** Events at QoS 1 (monitor down/up, scan completed, device discovered). */
  events: `netprobe/${id}/events`,
  /** Commands from the controller: netprobe/<id>/cmd/<name>, MQTT 5 request/response. */
  commands: `netprobe/${id}/cmd/#`,
  commandPrefix: `netprobe/${id}/cmd/`,
  /** Replies to commands sent without a response topic of their own. */
  reply: `netprobe/${id}/reply`,
  /** Everything this probe may publish on. */
  prefix: `netprobe/${id}/`,
});

/** One topic level from an id the probe does not choose (monitor ids are UUIDs; refuse anything else). */
export const safeLevel = (s: string): boolean => /^[A-Za-z0-9_.-]{1,128}$/.test(s);

export const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v), 'utf8');

/** The will: what the broker publishes (retained) when the connection is lost without a clean DISCONNECT. */
export const offlineWill = (version: string) => ({ state: 'offline', reason: 'connection lost', version });
