// The shapes every part of the SSH driver shares (a login, its limits, a host key seen) and the one rule
// about limits that both command transports apply: a command's share of the device's output cap. Kept apart
// so session, script and CLI files can all use them without importing one another.
export interface SshLogin {
  host: string;
  port: number;
  username: string;
  password?: string | undefined;
  privateKey?: string | undefined;
  passphrase?: string | undefined;
}

export interface SshLimits {
  /** TCP connect, key exchange and login together (ssh2's readyTimeout). */
  connectMs: number;
  /** From the TCP connection: the server's SSH ident and the key exchange must be done within it. */
  bannerMs: number;
  /** One command. */
  commandMs: number;
  /** All output of one device, in bytes; one command gets at most a quarter of it (and at least 64 KiB). */
  maxBytes: number;
}

export interface HostKey { type: string; fingerprint: string }

/** A command's share of the device's output cap. */
export function sectionCap(maxBytes: number): number {
  return Math.max(64 * 1024, Math.floor(maxBytes / 4));
}
