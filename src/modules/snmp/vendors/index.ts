// The built-in vendor profiles in match order (first match wins; generic MIB-II last, it matches every
// agent), and the cards a profile shows for one of its variants.
import { aruba } from './aruba.js';
import { cisco } from './cisco.js';
import { fortinet } from './fortinet.js';
import { generic } from './generic.js';
import { juniper } from './juniper.js';
import { mikrotik } from './mikrotik.js';
import { tplink } from './tplink.js';
import { ubiquiti } from './ubiquiti.js';
import type { Card, CardItem, IdentitySpec, VendorProfile, VendorVariant } from './types.js';

export const VENDOR_PROFILES: readonly VendorProfile[] = [cisco, juniper, aruba, ubiquiti, tplink, fortinet, mikrotik, generic];

export function profileByKey(key: string): VendorProfile | undefined {
  return VENDOR_PROFILES.find((p) => p.key === key);
}

/** The variant with this key, or the profile's first. */
export function variantOf(profile: VendorProfile, variantKey?: string | null): VendorVariant {
  return profile.variants.find((v) => v.key === variantKey) ?? profile.variants[0]!;
}

/** The profile's identity sources with the variant's replacing them field by field. */
export function identityOf(profile: VendorProfile, variant: VendorVariant): IdentitySpec {
  return { ...profile.identity, ...variant.identity };
}

const HARDWARE_FIELDS: Array<[keyof IdentitySpec, string]> = [
  ['model', 'Model'], ['serial', 'Serial number'], ['version', 'OS version'], ['firmware', 'Firmware'],
];

/** The hardware card reads what identification reads, so both always agree. */
export function hardwareCard(identity: IdentitySpec): Card {
  const items: CardItem[] = [];
  for (const [field, label] of HARDWARE_FIELDS) {
    const sources = identity[field];
    if (sources?.length) items.push({ key: field, label, value: sources });
  }
  return { key: 'hardware', title: 'Hardware', items };
}

/**
 * The cards of a profile for one variant: the profile's, with the hardware card after the system card,
 * a variant's card replacing the one with the same key and its other cards added at the end.
 */
export function cardsFor(profile: VendorProfile, variantKey?: string | null): Card[] {
  const variant = variantOf(profile, variantKey);
  const cards: Card[] = [];
  for (const card of profile.cards) {
    cards.push(variant.cards?.find((c) => c.key === card.key) ?? card);
    if (card.key === 'system') cards.push(hardwareCard(identityOf(profile, variant)));
  }
  for (const card of variant.cards ?? []) if (!cards.some((c) => c.key === card.key)) cards.push(card);
  return cards;
}
