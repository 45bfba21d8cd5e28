// The providers by type, and the default type for a URL: a service's well-known host (or, for the
// self-hosted ones, its path shape), else generic JSON.
import { discord } from './discord.js';
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
import { WEBHOOK_TYPES, type Provider, type WebhookType } from './types.js';

export const PROVIDERS: Record<WebhookType, Provider> = {
  generic, slack, discord, teams, google_chat: googleChat, mattermost, pagerduty, opsgenie, ntfy, gotify, telegram,
};

/** Host matches first, then the path-shaped self-hosted ones, generic last. */
const DETECTION_ORDER: Provider[] = [slack, discord, teams, googleChat, pagerduty, opsgenie, ntfy, telegram, mattermost, gotify];

export function defaultType(url: string): WebhookType {
  let u: URL;
  try { u = new URL(url); } catch { return 'generic'; }
  return DETECTION_ORDER.find((p) => p.matches(u))?.type ?? 'generic';
}

export const providerOf = (type: WebhookType): Provider => PROVIDERS[type];

export { WEBHOOK_TYPES, type Provider, type WebhookType };
