// The contract of a webhook provider: a pure function from an alert (and the webhook's URL, secret and
// options) to what goes out: the HTTP request its service documents, or (transport 'mail') an e-mail to
// the recipients in its options, sent through the probe's SMTP server. No I/O here: the dispatcher
// sends what a provider builds, through one sender (sender.ts) for both kinds.
import type { z } from 'zod';
import type { FieldError } from '../../../core/errors.js';
import type { Alert } from '../alert.js';

export interface DeliveryContext {
  /** The webhook's URL as stored, tokens and all ('' for a provider without one: transport 'mail'). */
  url: string;
  /** The webhook's secret (HMAC key, routing key, API key or token, by provider), or null. */
  secret: string | null;
  /** The webhook's provider options, as its `options` schema parsed them ({} for a provider without). */
  options: Record<string, unknown>;
  /** One id per delivery, the same on every attempt (receivers de-duplicate on it). */
  delivery_id: string;
  /** When this attempt is sent (ISO 8601). */
  sent_at: string;
  /** The probe sending it (config probe.name) and its version. */
  probe: { name: string; version: string };
  /** The web interface's address (config server.public_url), for links back to the probe; absent when not set. */
  public_url?: string;
}

export interface OutboundRequest {
  /** An HTTP request (the default, so the chat and incident providers need not say it). */
  kind?: 'http';
  method: 'POST';
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** An e-mail, sent through the SMTP server of the configuration's `smtp` section. */
export interface OutboundMail {
  kind: 'mail';
  /** The recipients: the webhook's options, never anything the alert says. */
  to: string[];
  /** One line (no line breaks), at most 200 characters. */
  subject: string;
  text: string;
  /** Self-contained: inline styles, no remote images, every piece of alert text escaped. */
  html: string;
  /** Further headers (X-Netprobe-*), for mail filters. */
  headers: Record<string, string>;
}

/** What a provider builds for one alert. */
export type Outbound = OutboundRequest | OutboundMail;

export interface Provider {
  /** Its name in the API (`type`), a literal (`'slack' as const`): the list of types comes from PROVIDERS. */
  type: string;
  /** Name for people. */
  label: string;
  /** Where the request format is documented. */
  reference: string;
  /**
   * How it sends: 'http' (the default) posts to the webhook's URL; 'mail' sends an e-mail through the
   * probe's SMTP server to the recipients in its options, and a webhook of it has no URL and no secret.
   */
  transport?: 'http' | 'mail';
  /**
   * How `matches` knows its URLs, which orders the detection: a service's well-known `host` first, then
   * the `path` shapes of self-hosted ones, the `fallback` (generic) last; `none` for a provider without a
   * URL (e-mail), which is chosen only by its type.
   */
  detect: 'host' | 'path' | 'fallback' | 'none';
  /** Whether this provider is the default for the URL (its service's well-known host or path). */
  matches(url: URL): boolean;
  /** The secret's role for this provider, for docs and validation messages; absent when unused. */
  secret?: { required: boolean; role: string };
  /** Problems with the URL or the secret for this provider, naming `url` or `secret`. */
  check?(url: URL, hasSecret: boolean): FieldError[];
  /**
   * What the provider needs besides the URL and secret (a chat, a recipient list): a strict zod object,
   * validated on create and update, listed as JSON Schema by GET /api/webhooks/providers and rendered by
   * the webhook form. Each field has a `.meta({ title })` and a `.describe()` for the form.
   */
  options?: z.ZodObject;
  /** Indexes of path segments (after the leading "/") that are secrets for this provider. */
  secretSegments?(segments: string[]): number[];
  /** How one secret segment is shown and which part of it is the secret (default: all of it, shown as ***). */
  maskSegment?(segment: string): { shown: string; secret: string };
  /** An 'http' provider builds an OutboundRequest, a 'mail' one an OutboundMail. */
  build(alert: Alert, ctx: DeliveryContext): Outbound;
}

/** Whether webhooks of this provider have a URL (and a secret): not those that send e-mail. */
export const takesUrl = (p: Pick<Provider, 'transport'>): boolean => (p.transport ?? 'http') === 'http';
