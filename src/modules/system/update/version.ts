// Release versions: semantic versions (with prerelease) as tags name them (v1.2.0 or 1.2.0). The root
// helper (scripts/updater.mjs, a standalone script) has its own copy of compareVersions(): keep them alike.

export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  prerelease: (string | number)[];
  raw: string;
}

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

export function parseVersion(text: string): SemVer | null {
  const m = SEMVER.exec(text);
  if (!m) return null;
  return {
    major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]),
    prerelease: m[4] ? m[4].split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p)) : [],
    raw: text,
  };
}

/** The version a release tag names (v1.2.3 or 1.2.3), or null for any other tag. */
export function tagVersion(tag: string): SemVer | null {
  return parseVersion(tag.startsWith('v') ? tag.slice(1) : tag);
}

/** Semantic Versioning 2.0.0 precedence: negative when a < b, 0 when equal (build metadata ignored). */
export function compareVersions(a: SemVer, b: SemVer): number {
  for (const k of ['major', 'minor', 'patch'] as const) if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
  const pa = a.prerelease, pb = b.prerelease;
  if (!pa.length || !pb.length) return pb.length - pa.length; // a release ranks above its prereleases
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = pa[i]!, y = pb[i]!;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x < y ? -1 : 1;
    if (typeof x === 'number') return -1; // numeric identifiers rank below alphanumeric ones
    if (typeof y === 'number') return 1;
    return x < y ? -1 : 1;
  }
  return pa.length - pb.length;
}
