// The providers by type, and the default type for a URL: a service's well-known host (or, for the
// self-hosted ones, its path shape), else generic JSON. E-mail has no URL: it is chosen by its type.
import { discord } from './discord.js';
import { email } from './email.js';
import { generic } from './generic.js';
import { googleChat } from './google-chat.js';
import { gotify } from './gotify.js';
import { mattermost } from './mattermost.js';
import { ntfy } from './ntfy.js';
import { opsgenie } from './opsgenie.js';
import { pagerduty } from './pagerduty.js';
import { slack } from './slack.js';
import { teams } from './teams.js';
import { telegram } from './telegram.js';
import type { Provider } from './types.js';

/** Every provider, in the order the API lists them. A new provider is its file and one entry here. */
const LIST = [generic, slack, discord, teams, googleChat, mattermost, pagerduty, opsgenie, ntfy, gotify, telegram, email] as const;

export type WebhookType = (typeof LIST)[number]['type'];
export const WEBHOOK_TYPES = LIST.map((p) => p.type) as [WebhookType, ...WebhookType[]];
export const PROVIDERS = Object.fromEntries(LIST.map((p) => [p.type, p])) as Record<WebhookType, Provider>;

/** Host matches first, then the path-shaped self-hosted ones; generic (the fallback) is what is left. */
const DETECTION_ORDER = [...LIST.filter((p) => p.detect === 'host'), ...LIST.filter((p) => p.detect === 'path')];

export function defaultType(url: string): WebhookType {
  let u: URL;
  try { u = new URL(url); } catch { return 'generic'; }
  return DETECTION_ORDER.find((p) => p.matches(u))?.type ?? 'generic';
}

export const providerOf = (type: WebhookType): Provider => PROVIDERS[type];

export type { Provider };
export { takesUrl } from './types.js';
