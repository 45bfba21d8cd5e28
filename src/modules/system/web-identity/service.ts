// Branding: the probe's name, accent colour and sign-in notice (configuration keys probe.name,
// system.accent_color, system.login_notice) and the logo and favicon files in <data dir>/brand/.
// An asset's type is read from its bytes, never from a name or a header; an SVG is refused (not
// cleaned) when it could run or fetch anything. A new asset replaces the old one atomically.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../../../core/context.js';
import { badRequest } from '../../../core/errors.js';
import { writeFileAtomic } from '../../../core/files.js';

export const BRAND_KINDS = ['logo', 'favicon'] as const;
export type BrandKind = (typeof BRAND_KINDS)[number];
export const BRAND_MAX_BYTES = 1024 * 1024;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export type BrandType = 'image/png' | 'image/jpeg' | 'image/x-icon' | 'image/svg+xml';

export interface BrandAsset { kind: BrandKind; type: BrandType; size: number; etag: string; bytes: Buffer }

export interface WebIdentity {
  probe_name: string;
  accent_color: string;
  login_notice: string;
  logo_url: string | null;
  favicon_url: string | null;
}

/** The asset's type from its first bytes, or an error naming what is wrong. */
export function sniffBrandAsset(bytes: Buffer): { type: BrandType } | { error: string } {
  if (bytes.length === 0) return { error: 'The file is empty' };
  if (bytes.length > BRAND_MAX_BYTES) return { error: 'The file is larger than 1 MiB' };
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return { type: 'image/png' };
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return { type: 'image/jpeg' };
  // ICONDIR: reserved 0, type 1 (icon), at least one image, and room for the directory entries.
  if (bytes.length >= 6 && bytes.readUInt16LE(0) === 0 && bytes.readUInt16LE(2) === 1) {
    const count = bytes.readUInt16LE(4);
    if (count > 0 && bytes.length >= 6 + 16 * count) return { type: 'image/x-icon' };
  }
  const svg = checkSvg(bytes);
  if (svg === true) return { type: 'image/svg+xml' };
  if (svg) return { error: svg };
  return { error: 'Not a PNG, JPEG, ICO or SVG image' };
}

// A namespace prefix as XML allows it (an NCName: letters, digits, ".", "-", "_" and more than ASCII), so
// that a name is matched by its local part whatever prefix it has: <x.y:script> is a script.
const PREFIX = String.raw`(?:[^\s<>/:="'!?]+:)?`;
const element = (names: string) => new RegExp(String.raw`<\s*${PREFIX}(?:${names})\b`, 'i');
const SCRIPT = element('script');
const EMBEDDED = element('foreignObject|iframe|embed|object|audio|video|handler|listener');
const EVENT_HANDLER = new RegExp(String.raw`[\s"'/]${PREFIX}on[a-z]+\s*=`, 'i');
const HREF = new RegExp(String.raw`(?:^|[\s"'])(${PREFIX}href)\s*=\s*("([^"]*)"|'([^']*)'|([^\s>]+))`, 'gi');
const ANIMATED_HREF = new RegExp(String.raw`<\s*${PREFIX}(?:set|animate)\b[^>]*attributeName\s*=\s*["']?${PREFIX}href`, 'i');

/**
 * true for a safe SVG, a reason for a refused one, null when the bytes are no SVG at all. Refused:
 * scripts, event handler attributes, foreignObject, DOCTYPE and entities, any href or url() that is
 * not a fragment of the file itself, style sheets importing anything, embedded frames and objects;
 * elements and attributes by their local name, whatever their namespace prefix.
 */
export function checkSvg(bytes: Buffer): true | string | null {
  let text: string;
  try { text = new TextDecoder('utf-8', { fatal: true }).decode(bytes); } catch { return null; }
  const head = text.replace(/^\uFEFF/, '').replace(/^\s*(<\?xml[^>]*\?>\s*)?(<!--[\s\S]*?-->\s*)*/, '');
  if (!/^<svg[\s>/]/i.test(head) && !/^<!doctype\s+svg/i.test(head)) return null;
  if (text.includes('\u0000')) return 'The SVG contains NUL characters';
  if (/<!DOCTYPE|<!ENTITY|<!\[CDATA\[/i.test(text)) return 'The SVG declares a DOCTYPE, entities or CDATA';
  if (SCRIPT.test(text)) return 'The SVG contains a script';
  if (EMBEDDED.test(text)) return 'The SVG contains foreignObject or embedded content';
  if (EVENT_HANDLER.test(text)) return 'The SVG contains an event handler attribute';
  for (const m of text.matchAll(HREF)) {
    const v = (m[3] ?? m[4] ?? m[5] ?? '').trim();
    if (!v.startsWith('#')) return `The SVG refers to an external resource (${m[1]})`;
  }
  for (const m of text.matchAll(/url\s*\(\s*(['"]?)([^)'"]*)\1\s*\)/gi)) {
    if (!m[2]!.trim().startsWith('#')) return 'The SVG refers to an external resource (url())';
  }
  if (/@import|(^|[^\w-])(javascript|data):/i.test(text)) return 'The SVG refers to an external resource';
  if (ANIMATED_HREF.test(text)) return 'The SVG animates a link';
  return true;
}

export class BrandService {
  private cache = new Map<BrandKind, BrandAsset | null>();

  constructor(private app: Pick<AppContext, 'config'>) {}

  get dir(): string { return path.join(this.app.config.dataDir, 'brand'); }

  identity(): WebIdentity {
    const c = this.app.config.get();
    return {
      probe_name: c.probe.name,
      accent_color: c.system.accent_color,
      login_notice: c.system.login_notice,
      logo_url: this.urlOf('logo'),
      favicon_url: this.urlOf('favicon'),
    };
  }

  private urlOf(kind: BrandKind): string | null {
    const a = this.cache.get(kind);
    if (a === null) return null;
    // Not loaded yet: the file decides (an etag-free URL the first time; the browser revalidates anyway).
    return a ? `/api/web-identity/${kind}?v=${a.etag.slice(0, 12)}` : `/api/web-identity/${kind}`;
  }

  /** Reads the assets once at start, so identity() knows which exist. */
  async init(): Promise<void> {
    for (const k of BRAND_KINDS) await this.get(k);
  }

  async get(kind: BrandKind): Promise<BrandAsset | null> {
    const hit = this.cache.get(kind);
    if (hit !== undefined) return hit;
    let bytes: Buffer | null = null;
    try { bytes = await fs.readFile(path.join(this.dir, kind)); } catch { bytes = null; }
    const sniffed = bytes ? sniffBrandAsset(bytes) : null;
    const asset = bytes && sniffed && 'type' in sniffed ? this.asset(kind, sniffed.type, bytes) : null;
    this.cache.set(kind, asset);
    return asset;
  }

  /** Checks the bytes, then replaces the stored asset atomically (temp file, fsync, rename, fsync dir). */
  async put(kind: BrandKind, bytes: Buffer): Promise<BrandAsset> {
    const sniffed = sniffBrandAsset(bytes);
    if ('error' in sniffed) throw badRequest(sniffed.error, [{ path: 'file', message: sniffed.error }]);
    await writeFileAtomic(path.join(this.dir, kind), bytes);
    const asset = this.asset(kind, sniffed.type, bytes);
    this.cache.set(kind, asset);
    return asset;
  }

  /** Removes an asset; true when there was one. */
  async remove(kind: BrandKind): Promise<boolean> {
    const had = (await this.get(kind)) !== null;
    await fs.rm(path.join(this.dir, kind), { force: true });
    this.cache.set(kind, null);
    return had;
  }

  private asset(kind: BrandKind, type: BrandType, bytes: Buffer): BrandAsset {
    const etag = createHash('sha256').update(bytes).digest('base64url').slice(0, 27);
    return { kind, type, size: bytes.length, etag, bytes };
  }
}
