// How to install ZeroTier and Tailscale on this host (GET /api/oob/install and the 503 when a program is
// missing): the vendors' own packages for this OS release and architecture, as text and commands to run
// by hand. Nothing is executed: installing adds a package repository and a root daemon, which is the
// operator's decision. Neither program is packaged in Debian.
import { readFileSync } from 'node:fs';
import { HttpError } from '../../../core/errors.js';
import { which } from '../../../core/exec.js';

export type Provider = 'zerotier' | 'tailscale';

export interface OsInfo { id: string; id_like: string[]; version_codename: string; pretty_name: string }

export interface InstallHint {
  provider: Provider;
  /** Whether the vendor ships packages for this OS and architecture. */
  supported: boolean;
  summary: string;
  /** Commands to run as root, in order. */
  commands: string[];
  /** What to run after installing so that netprobe can drive it. */
  after: string[];
  docs_url: string;
}

/** Node's architecture names as Debian's. */
const DEBIAN_ARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64', arm: 'armhf', ia32: 'i386', riscv64: 'riscv64' };
const ZEROTIER_ARCHES = new Set(['amd64', 'arm64', 'armhf', 'armel', 'i386', 'riscv64']);
const TAILSCALE_ARCHES = new Set(['amd64', 'arm64', 'armhf', 'i386', 'riscv64']);

let cachedOs: OsInfo | undefined;

/** /etc/os-release (or /usr/lib/os-release) as the fields used here; empty fields when neither is readable. */
export function osInfo(read: (p: string) => string = (p) => readFileSync(p, 'utf8')): OsInfo {
  if (cachedOs) return cachedOs;
  let text = '';
  for (const p of ['/etc/os-release', '/usr/lib/os-release']) {
    try { text = read(p); break; } catch { /* next */ }
  }
  cachedOs = parseOsRelease(text);
  return cachedOs;
}

export function parseOsRelease(text: string): OsInfo {
  const v: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (m) v[m[1]!] = m[2]!.replace(/^"(.*)"$|^'(.*)'$/, '$1$2').trim();
  }
  return {
    id: (v.ID ?? '').toLowerCase(),
    id_like: (v.ID_LIKE ?? '').toLowerCase().split(/\s+/).filter(Boolean),
    version_codename: (v.VERSION_CODENAME ?? '').toLowerCase(),
    pretty_name: v.PRETTY_NAME ?? '',
  };
}

export function debianArch(nodeArch: string = process.arch): string {
  return DEBIAN_ARCH[nodeArch] ?? nodeArch;
}

/** Tailscale's package repositories are per distribution: debian, raspbian (32-bit Raspberry Pi OS), ubuntu. */
function tailscaleDistro(os: OsInfo): string | null {
  if (['debian', 'raspbian', 'ubuntu'].includes(os.id)) return os.id;
  if (os.id_like.includes('ubuntu')) return 'ubuntu';
  if (os.id_like.includes('debian')) return 'debian';
  return null;
}

export function installHintsFor(provider: Provider, os: OsInfo = osInfo(), nodeArch: string = process.arch): InstallHint {
  const arch = debianArch(nodeArch);
  const codename = os.version_codename || '<codename>';
  const where = `${os.pretty_name || 'this system'} (${arch})`;
  if (provider === 'zerotier') {
    const supported = ZEROTIER_ARCHES.has(arch) && 
      (['debian', 'raspbian', 'ubuntu'].includes(os.id) || os.id_like.includes('debian'));
    return {
      provider, supported,
      summary: supported
        ? `Install ZeroTier One for ${where} from ZeroTier's package repository (download.zerotier.com) with its signed install script`
        : `ZeroTier publishes no package for ${where}: see https://www.zerotier.com/download/`,
      commands: supported ? [
        // ZeroTier's documented, signature-checked form of its install script.
        "curl -s 'https://raw.githubusercontent.com/zerotier/ZeroTierOne/main/doc/contact%40zerotier.com.gpg' | gpg --import",
        "z=$(curl -s 'https://install.zerotier.com/' | gpg) && echo \"$z\" | sudo bash",
        'sudo systemctl enable --now zerotier-one',
      ] : [],
      after: [
        // The service reads its own copy of the auth token (docs/oob.md).
        'sudo systemctl enable --now netprobe-zerotier-token.path netprobe-zerotier-token.service',
      ],
      docs_url: 'https://www.zerotier.com/download/',
    };
  }
  const distro = tailscaleDistro(os);
  const supported = TAILSCALE_ARCHES.has(arch) && distro !== null && !!os.version_codename;
  const base = `https://pkgs.tailscale.com/stable/${distro ?? 'debian'}/${codename}`;
  return {
    provider, supported,
    summary: supported
      ? `Install Tailscale for ${where} from Tailscale's package repository (pkgs.tailscale.com/stable/${distro}/${codename})`
      : `Tailscale's repository has no entry for ${where} that this service can name: see https://tailscale.com/download/linux`,
    commands: supported ? [
      `curl -fsSL ${base}.noarmor.gpg | sudo tee /usr/share/keyrings/tailscale-archive-keyring.gpg >/dev/null`,
      `curl -fsSL ${base}.tailscale-keyring.list | sudo tee /etc/apt/sources.list.d/tailscale.list`,
      'sudo apt-get update && sudo apt-get install -y tailscale',
    ] : [],
    after: [
      // Without it only root may change Tailscale's settings (up, down): the service runs as netprobe.
      'sudo tailscale set --operator=netprobe',
    ],
    docs_url: 'https://tailscale.com/download/linux',
  };
}

/** The program missing: core/exec.ts's 503, with this OS's install instructions. */
export function withInstallHint(e: unknown, provider: Provider): unknown {
  if (!(e instanceof HttpError) || e.code !== 'program_missing') return e;
  const hint = installHintsFor(provider);
  return new HttpError(503, 'program_missing', `${e.message}. ${hint.summary}`,
    { extra: { ...e.extra, install_hint: `${hint.summary}: ${hint.docs_url}`, install: hint } });
}

/** GET /api/oob/install: this host, and for each provider whether it is installed and how to install it. */
export async function installOverview(programs: Record<Provider, string>) {
  const os = osInfo();
  const hint = async (p: Provider) => ({ ...installHintsFor(p, os), installed: (await which(programs[p])) !== null, program: programs[p] });
  return {
    os: { id: os.id, version_codename: os.version_codename, pretty_name: os.pretty_name },
    arch: { node: process.arch, debian: debianArch() },
    providers: { zerotier: await hint('zerotier'), tailscale: await hint('tailscale') },
  };
}
