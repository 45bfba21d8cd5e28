// The contract of a webhook provider: a pure function from an alert (and the webhook's URL and secret)
// to the HTTP request its service documents. No I/O here: the dispatcher sends what a provider builds.
import type { z } from 'zod';
import type { FieldError } from '../../../core/errors.js';
import type { Alert } from '../alert.js';

export interface DeliveryContext {
  /** The webhook's URL as stored, tokens and all. */
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
}

export interface OutboundRequest {
  method: 'POST';
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface Provider {
  /** Its name in the API (`type`), a literal (`'slack' as const`): the list of types comes from PROVIDERS. */
  type: string;
  /** Name for people. */
  label: string;
  /** Where the request format is documented. */
  reference: string;
  /**
   * How `matches` knows its URLs, which orders the detection: a service's well-known `host` first, then
   * the `path` shapes of self-hosted ones, the `fallback` (generic) last.
   */
  detect: 'host' | 'path' | 'fallback';
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
  build(alert: Alert, ctx: DeliveryContext): OutboundRequest;
}
