// IANA time zones as every input takes them (the probe's zone, a site's, a maintenance window's): the
// runtime's own zone data decides, and the name is kept in its canonical spelling.
import { z } from 'zod';

/** The runtime's canonical name of a zone it knows (offsets like +02:00 included), or null. */
export function knownZone(tz: string): string | null {
  if (tz === 'UTC') return tz; // the default: no need to load the time zone data at every start-up (about 20 ms)
  try {
    return new Intl.DateTimeFormat('en', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** knownZone() for a zone name: bare offsets like +02:00 are refused (what inputs take). */
export function canonicalZone(tz: string): string | null {
  return /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(tz) ? knownZone(tz) : null;
}

/** An IANA zone name, answered in its canonical spelling; `message` says what is wrong with another. */
export const timeZoneSchema = (message: (tz: string) => string = () => 'Must be an IANA time zone such as UTC or Europe/Berlin') =>
  z.string().trim().min(1).max(64).transform((tz, c) => {
    const canonical = canonicalZone(tz);
    if (!canonical) {
      c.addIssue({ code: 'custom', message: message(tz) });
      return z.NEVER;
    }
    return canonical;
  });
