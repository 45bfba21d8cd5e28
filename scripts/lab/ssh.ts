// The SSH host: Debian's sshd on port 22 with a password user and an ed25519-key user, and lldpd so
// that `lldpctl` over SSH shows its switch, as on a real Debian server. Keys, users and configuration
// live in the host's directory; nothing is added to this machine's /etc. A small script (run.sh) runs
// inside the namespace's private mount namespace (`ip netns exec` makes one) and there mounts an empty
// /run (lldpctl's default socket, sshd's privilege separation directory) and the lab's own
// passwd/group/shadow/hostname/machine-id over /etc's, then runs lldpd in the background and sshd in
// the foreground.
import { randomBytes } from 'node:crypto';
import { chownSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DaemonSpec } from './daemons.js';
import { run } from './run.js';
import { writeLldpConf } from './snmp.js';
import { addressesOf, type HostPlan } from './topology.js';

export interface SshAccess {
  host: string;
  port: 22;
  password: { username: string; password: string };
  /** ed25519 key in OpenSSH format (which ssh2 reads; it rejects PKCS#8). */
  key: { username: string; privateKey: string; privateKeyPath: string; publicKey: string };
  hostKey: { publicKey: string; fingerprint: string };
}

const USERS = { password: { name: 'labpass', uid: 47701 }, key: { name: 'labkey', uid: 47702 } };

function keygen(file: string, comment: string): void {
  run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', file]);
}

/** This machine's account files plus the lab users (in group adm, which Debian's lldpcli needs). */
function writeAccounts(dir: string, passwordHash: string): void {
  const home = (u: string) => join(dir, 'home', u);
  const users = Object.values(USERS);
  const passwd = readFileSync('/etc/passwd', 'utf8').trimEnd().split('\n')
    .concat(users.map((u) => `${u.name}:x:${u.uid}:${u.uid}:netprobe lab:${home(u.name)}:/bin/bash`));
  const group = readFileSync('/etc/group', 'utf8').trimEnd().split('\n').map((l) => {
    if (!l.startsWith('adm:')) return l;
    const members = l.split(':')[3] ?? '';
    return `${l}${members ? ',' : ''}${users.map((u) => u.name).join(',')}`;
  }).concat(users.map((u) => `${u.name}:x:${u.uid}:`));
  // Built, not copied: no hash of this machine's accounts lands in the lab. '*' (not '!') matches no
  // password, yet sshd does not treat the key user as locked.
  const shadow = passwd.map((l) => l.split(':')[0]!)
    .map((name) => `${name}:${name === USERS.password.name ? passwordHash : '*'}:19000:0:99999:7:::`);
  writeFileSync(join(dir, 'passwd'), passwd.join('\n') + '\n', { mode: 0o644 });
  writeFileSync(join(dir, 'group'), group.join('\n') + '\n', { mode: 0o644 });
  writeFileSync(join(dir, 'shadow'), shadow.join('\n') + '\n', { mode: 0o600 });
  for (const u of users) {
    mkdirSync(home(u.name), { recursive: true, mode: 0o755 });
    chownSync(home(u.name), u.uid, u.uid);
  }
}

export function prepareSsh(h: HostPlan, dir: string): { spec: DaemonSpec; access: SshAccess } {
  const hostKey = join(dir, 'ssh_host_ed25519_key');
  const userKey = join(dir, 'labkey_ed25519');
  keygen(hostKey, `${h.name}.lab.test`);
  keygen(userKey, `${USERS.key.name}@netprobe-lab`);
  const password = randomBytes(12).toString('base64url');
  writeAccounts(dir, run('openssl', ['passwd', '-6', '-stdin'], { input: password }).trim());
  mkdirSync(join(dir, 'authorized_keys'), { mode: 0o755 });
  const publicKey = readFileSync(`${userKey}.pub`, 'utf8');
  writeFileSync(join(dir, 'authorized_keys', USERS.key.name), publicKey, { mode: 0o644 });

  writeFileSync(join(dir, 'sshd_config'), [
    'Port 22',
    `HostKey ${hostKey}`,
    `PidFile ${join(dir, 'sshd.pid')}`,
    'UsePAM no', // shadow passwords straight from the lab's own /etc/shadow
    'PasswordAuthentication yes',
    'KbdInteractiveAuthentication no',
    'PubkeyAuthentication yes',
    `AuthorizedKeysFile ${join(dir, 'authorized_keys')}/%u`,
    'StrictModes no', // the keys sit under /tmp, which is world-writable
    `AllowUsers ${USERS.password.name} ${USERS.key.name}`,
    'PermitRootLogin no',
    'UseDNS no',
    'LogLevel VERBOSE',
    'MaxStartups 100',
  ].join('\n') + '\n', { mode: 0o600 });

  // Its own name and machine ID, as SSH enrichment reads them from a real server.
  writeFileSync(join(dir, 'hostname'), `${h.name}\n`);
  writeFileSync(join(dir, 'machine-id'), `${randomBytes(16).toString('hex')}\n`);
  const lldpConf = writeLldpConf(h, dir);
  const script = join(dir, 'run.sh');
  writeFileSync(script, [
    'set -e',
    'mount -t tmpfs -o mode=0755,size=8m netprobe-lab-run /run',
    'mkdir -p /run/sshd /run/lldpd',
    `echo ${h.name} > /proc/sys/kernel/hostname`,
    // Only over files that exist: creating one would change this machine's own /etc.
    `for f in passwd group shadow hostname machine-id; do if [ -e "/etc/$f" ]; then mount --bind "${dir}/$f" "/etc/$f"; fi; done`,
    `lldpd -d -I eth0 -m ${addressesOf(h)[0]} -O "${lldpConf}" >>"${dir}/lldpd.log" 2>&1 &`,
    `exec /usr/sbin/sshd -D -e -f "${dir}/sshd_config"`,
  ].join('\n') + '\n', { mode: 0o700 });

  return {
    spec: {
      // Its own UTS namespace, so `hostname` there says "ssh", not this machine's name.
      name: 'sshd', phase: 1, argv: ['unshare', '--uts', 'sh', script],
      ready: [{ patterns: [/Server listening on 0\.0\.0\.0 port 22/] },
        { patterns: [/lldpd should resume operations/], file: join(dir, 'lldpd.log') }],
    },
    access: {
      host: addressesOf(h)[0]!, port: 22,
      password: { username: USERS.password.name, password },
      key: { username: USERS.key.name, privateKey: readFileSync(userKey, 'utf8'), privateKeyPath: userKey, publicKey },
      hostKey: {
        publicKey: readFileSync(`${hostKey}.pub`, 'utf8'),
        fingerprint: run('ssh-keygen', ['-lf', `${hostKey}.pub`]).split(' ')[1]!,
      },
    },
  };
}
