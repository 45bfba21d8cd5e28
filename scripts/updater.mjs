#!/usr/bin/env node
// netprobe's update helper. Runs as root (netprobe-update.service, started by netprobe-update.path when the
// service writes <data>/update-request.json), because the service may not write /opt/netprobe nor be the
// parent of whatever restarts it. It installs only a release whose tag is signed by the pinned key, and
// puts everything back when the new release does not come up. docs/update.md.
//
//   updater.mjs [--prefix /opt/netprobe] [--data /var/lib/netprobe] [--cache /var/cache/netprobe-update]
//               [--signers /etc/netprobe-update/allowed_signers] [--url URL --branch B] [--allow-downgrade]
//               [--restore-backup] [--health-url URL] [--health-timeout SECONDS] [--min-free-mb N]
//   Without --url it handles the request file. NETPROBE_UPDATE_STOP, NETPROBE_UPDATE_START and
//   NETPROBE_UPDATE_LOGS (JSON argv arrays, no shell) replace `systemctl stop|start netprobe.service` and
//   `journalctl -u netprobe.service`, so that it runs without systemd.
//
// Steps: lock (flock, its descriptor closed for every child) -> take the request (a regular file of the
// service user's) -> fetch into root's own cache (never a repository the service owns: root running git
// there would run hooks the service planted) -> the annotated v<version> tag at the branch tip, verified
// with `git verify-tag` against the pinned allowed-signers file (only its exit code counts) -> refuse a
// downgrade unless asked, and across a schema change unless restoring that release's backup -> free space
// -> `git archive` into releases/.tmp-* -> releases/<version> -> stop the service (SIGTERM: it checkpoints)
// -> back up netprobe.db and netprobe.journal -> switch `current` (symlink + rename) -> start -> GET the
// health URL until it answers the new version -> otherwise stop, restore the database, switch back, start
// the old release: rolled_back, with the new release's log tail -> keep current + 2 previous releases.
// Progress: <data>/update-progress.jsonl (one JSON line per step); outcome: <data>/update-status.json.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const ALLOWED_PROTOCOLS = 'https:http:git:ssh:file';
const BRANCH = /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*\.lock$)(?!.*\/$)(?!\/)[A-Za-z0-9._/-]{1,200}$/;
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]+)?$/;
const STORE_FILES = ['netprobe.db', 'netprobe.journal'];
const KEEP_PREVIOUS = 2;

// ---- arguments --------------------------------------------------------------------------------------
const argv = process.argv.slice(2);
const opt = { prefix: '/opt/netprobe', data: '/var/lib/netprobe', cache: '/var/cache/netprobe-update',
  signers: '/etc/netprobe-update/allowed_signers' };
const flags = {};
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--allow-downgrade' || a === '--restore-backup') { flags[a.slice(2)] = true; continue; }
  const m = /^--(prefix|data|cache|signers|url|branch|health-url|health-timeout|min-free-mb)$/.exec(a);
  if (!m || argv[i + 1] === undefined) { console.error(`updater: unknown or incomplete argument ${a}`); process.exit(2); }
  const v = argv[++i];
  if (['prefix', 'data', 'cache', 'signers'].includes(m[1])) opt[m[1]] = path.resolve(v); else flags[m[1]] = v;
}
const cmdFromEnv = (name, dflt) => {
  const raw = process.env[name];
  if (!raw) return dflt;
  const v = JSON.parse(raw);
  if (!Array.isArray(v) || !v.length || v.some((x) => typeof x !== 'string')) throw new Error(`${name} must be a JSON array of strings`);
  return v;
};
const STOP = cmdFromEnv('NETPROBE_UPDATE_STOP', ['systemctl', 'stop', 'netprobe.service']);
const START = cmdFromEnv('NETPROBE_UPDATE_START', ['systemctl', 'start', 'netprobe.service']);
const LOGS = cmdFromEnv('NETPROBE_UPDATE_LOGS', ['journalctl', '-u', 'netprobe.service', '-n', '40', '-o', 'cat', '--no-pager']);

// ---- the lock: re-run under flock(1); --close keeps its descriptor out of this process and its children --
if (process.env.NETPROBE_UPDATE_LOCKED !== '1') {
  fs.mkdirSync(opt.cache, { recursive: true, mode: 0o700 });
  const r = spawnSync('flock', ['--nonblock', '--close', '--conflict-exit-code', '75', path.join(opt.cache, 'update.lock'),
    process.execPath, SELF, ...argv], { stdio: 'inherit', env: { ...process.env, NETPROBE_UPDATE_LOCKED: '1' } });
  if (r.status === 75) console.error('updater: another update is running');
  process.exit(r.status ?? 1);
}

// ---- progress and outcome ---------------------------------------------------------------------------
const started = new Date().toISOString();
const run = { request_id: null, url: null, branch: null, from: null, to: null, tag: null, commit: null, requested_by: null };
let progressFd = null;

/** A file the helper writes in the service's directory: a fresh file, then rename (never through a planted link). */
function writeDataFile(name, text) {
  const tmp = path.join(opt.data, `.${name}.${process.pid}.tmp`);
  fs.rmSync(tmp, { force: true });
  const fd = fs.openSync(tmp, 'wx', 0o644);
  try { fs.writeSync(fd, text); fs.fsyncSync(fd); } finally { fs.closeSync(fd); }
  fs.renameSync(tmp, path.join(opt.data, name));
}

function progress(step, pct, message) {
  const line = JSON.stringify({ request_id: run.request_id, at: new Date().toISOString(), step, progress: pct, message });
  console.log(`[${step}] ${message}`);
  if (progressFd !== null) fs.writeSync(progressFd, line + '\n');
}

class Outcome extends Error {
  constructor(result, detail, extra = {}) { super(detail); this.result = result; this.extra = extra; }
}
const refuse = (detail) => new Outcome('refused', detail);
const fail = (detail, extra) => new Outcome('failed', detail, extra);

function finish(result, detail, extra = {}) {
  const status = { ...run, result, detail, ...extra, started_at: started, finished_at: new Date().toISOString() };
  progress('done', 100, `${result}: ${detail}`);
  writeDataFile('update-status.json', JSON.stringify(status, null, 2) + '\n');
  if (progressFd !== null) fs.closeSync(progressFd);
  process.exit(result === 'failed' ? 1 : 0);
}

// ---- small tools ------------------------------------------------------------------------------------
/** Runs a program (argv, no shell) with a timeout; the outcome, never an exception. */
function sh(argvList, { env, timeoutMs = 120_000, input } = {}) {
  const r = spawnSync(argvList[0], argvList.slice(1), { env: env ?? process.env, timeout: timeoutMs, input,
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout ?? '', stderr: (r.stderr ?? '') + (r.error ? String(r.error.message) : '') };
}
const tail = (text, n = 3) => text.trim().split('\n').filter(Boolean).slice(-n).join(' | ').slice(0, 800);

function parseVersion(text) {
  const m = SEMVER.exec(text);
  if (!m) return null;
  return { major: +m[1], minor: +m[2], patch: +m[3], pre: m[4] ? m[4].split('.').map((p) => (/^\d+$/.test(p) ? +p : p)) : [], raw: text };
}
/** Semantic Versioning precedence (the same as src/modules/system/update/version.ts). */
function compareVersions(a, b) {
  for (const k of ['major', 'minor', 'patch']) if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
  if (!a.pre.length || !b.pre.length) return b.pre.length - a.pre.length;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i], y = b.pre[i];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x < y ? -1 : 1;
    if (typeof x === 'number') return -1;
    if (typeof y === 'number') return 1;
    return x < y ? -1 : 1;
  }
  return a.pre.length - b.pre.length;
}

/** Opens a file of the service user's without following a link, and checks it through the descriptor. */
function readOwnedFile(file, owner, maxBytes) {
  let fd;
  try { fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK); } catch (e) {
    if (e.code === 'ENOENT') return null;
    throw refuse(`${file} cannot be opened (${e.code}): not a regular file?`);
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw refuse(`${file} is not a regular file`);
    if (st.uid !== owner.uid) throw refuse(`${file} is not the service user's file`);
    if (st.size > maxBytes) throw refuse(`${file} is larger than ${maxBytes} bytes`);
    return fs.readFileSync(fd, 'utf8');
  } finally { fs.closeSync(fd); }
}

function urlProblem(url) {
  let u;
  try { u = new URL(url); } catch { return 'not a URL'; }
  if (!['https:', 'http:', 'git:', 'ssh:', 'file:'].includes(u.protocol)) return 'not an https, http, git, ssh or file URL';
  if (u.password || (u.username && u.protocol !== 'ssh:')) return 'credentials in the URL';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f]/.test(url)) return 'spaces or control characters';
  return null;
}

/**
 * Why root may not fetch from a file:// source, or null. Whoever can write the repository, or rename a directory
 * above it, decides what root's git reads: so the resolved path, every directory above it (a sticky one like /tmp
 * excepted, where others cannot move root's entries) and everything in it must be root's and writable by root only.
 */
function localSourceProblem(dir) {
  for (let p = path.dirname(dir); ; p = path.dirname(p)) {
    const st = fs.lstatSync(p);
    if (st.uid !== 0 || (st.mode & 0o022 && !(st.mode & 0o1000))) return `${p} (above the source) is not root's or is writable by others`;
    if (p === '/') break;
  }
  const todo = [dir];
  for (let n = 0; todo.length; n++) {
    if (n > 500_000) return `the source ${dir} holds more than 500,000 files`;
    const p = todo.pop();
    const st = fs.lstatSync(p);
    if (!st.isFile() && !st.isDirectory()) return `${p} (in the source) is neither a regular file nor a directory`;
    if (st.uid !== 0 || st.mode & 0o022) return `${p} (in the source) is not root's or is writable by others`;
    if (st.isDirectory()) for (const e of fs.readdirSync(p)) todo.push(path.join(p, e));
  }
  return null;
}

/** What follows git's signature marker (the last line opening one, as git finds it) in a tag object, or null. */
function signatureKind(tagObject) {
  const opening = tagObject.split('\n').filter((l) => l.startsWith('-----BEGIN ')).pop();
  return opening ? opening.replace(/^-----BEGIN |-----$/g, '') : null;
}

// ---- the request ------------------------------------------------------------------------------------
const dataOwner = fs.statSync(opt.data); // the service user owns its data directory
const requestFile = path.join(opt.data, 'update-request.json');
let req;
try {
  fs.rmSync(path.join(opt.data, 'update-progress.jsonl'), { force: true });
  progressFd = fs.openSync(path.join(opt.data, 'update-progress.jsonl'), 'wx', 0o644);
  if (flags.url) {
    req = { id: null, url: flags.url, branch: flags.branch ?? 'stable', allow_downgrade: !!flags['allow-downgrade'],
      restore_backup: !!flags['restore-backup'], requested_by: 'root (command line)' };
  } else {
    let text;
    try { text = readOwnedFile(requestFile, dataOwner, 64 * 1024); } finally { fs.rmSync(requestFile, { force: true }); }
    if (text === null) { console.log('updater: no request'); fs.closeSync(progressFd); process.exit(0); }
    try { req = JSON.parse(text); } catch { throw refuse('the request is not JSON'); }
  }
  run.request_id = typeof req.id === 'string' && /^[0-9a-f-]{36}$/.test(req.id) ? req.id : null;
  run.url = req.url; run.branch = req.branch; run.requested_by = typeof req.requested_by === 'string' ? req.requested_by.slice(0, 200) : null;
  if (typeof req.url !== 'string' || urlProblem(req.url)) throw refuse(`the source URL is refused: ${urlProblem(String(req.url))}`);
  if (typeof req.branch !== 'string' || !BRANCH.test(req.branch)) throw refuse('the branch name is refused');
} catch (e) {
  if (e instanceof Outcome) finish(e.result, e.message);
  throw e;
}
const healthUrl = flags['health-url'] ?? req.health_url ?? 'http://127.0.0.1:8080/api/version';
const num = (v, dflt) => (Number.isFinite(Number(v)) && Number(v) >= 0 ? Number(v) : dflt);
const healthTimeoutS = num(flags['health-timeout'] ?? req.health_timeout_seconds, 180);
const minFreeMb = num(flags['min-free-mb'] ?? req.min_free_mb, 150);

// ---- git, in root's own cache -----------------------------------------------------------------------
function gitEnv() {
  const env = { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_ALLOW_PROTOCOL: ALLOWED_PROTOCOLS, GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null', GIT_SSH_COMMAND: 'ssh -o BatchMode=yes -o ConnectTimeout=15', GIT_ASKPASS: '/bin/false',
    GIT_DIR: path.join(opt.cache, 'source.git'), GIT_CONFIG_COUNT: '0', LC_ALL: 'C' };
  delete env.NETPROBE_UPDATE_LOCKED;
  const raw = readOwnedFile(path.join(opt.data, 'update-credentials.json'), dataOwner, 16 * 1024);
  if (raw && /^https?:/.test(req.url)) {
    let c;
    try { c = JSON.parse(raw); } catch { c = null; }
    // Only for the source they were set for, and only as a header from the environment.
    if (c && c.url === req.url && typeof c.token === 'string' && c.token && !/[\r\n]/.test(c.token + (c.username ?? ''))) {
      const value = c.username ? `Basic ${Buffer.from(`${c.username}:${c.token}`).toString('base64')}` : `Bearer ${c.token}`;
      Object.assign(env, { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: `http.${req.url}.extraHeader`, GIT_CONFIG_VALUE_0: `Authorization: ${value}` });
    }
  }
  return env;
}

async function main() {
  const env = gitEnv();
  const git = (args, o = {}) => sh(['git', ...args], { env, ...o });
  const releases = path.join(opt.prefix, 'releases');
  const current = path.join(opt.prefix, 'current');
  const link = fs.existsSync(current) ? fs.readlinkSync(current) : null;
  const fromDir = link ? path.resolve(opt.prefix, link) : null;
  const readJson = (f) => { try { return JSON.parse(fs.readFileSync(f, 'utf8')); } catch { return null; } };
  run.from = fromDir ? readJson(path.join(fromDir, 'package.json'))?.version ?? null : null;

  // The pinned key: root's file, in root's directory. Without it nothing is installed.
  let signers;
  try { signers = fs.statSync(opt.signers); } catch { signers = null; }
  if (!signers) throw refuse(`no release key pinned (${opt.signers} is missing): install one with scripts/install.sh --release-key FILE`);
  if (signers.uid !== 0 || (signers.mode & 0o022)) throw refuse(`${opt.signers} must be root's and writable by root only`);

  let fetchUrl = req.url;
  if (req.url.startsWith('file:')) {
    // Fetched from the resolved path, so that no link on the way can be swapped after the check.
    let dir;
    try { dir = fs.realpathSync(fileURLToPath(req.url)); } catch (e) { throw refuse(`the source ${req.url} cannot be read (${e.code ?? e.message})`); }
    const problem = localSourceProblem(dir);
    if (problem) throw refuse(`the local source is refused: ${problem}`);
    fetchUrl = pathToFileURL(dir).href;
  }
  progress('fetch', 5, `fetching ${req.branch} from ${req.url}`);
  if (!fs.existsSync(env.GIT_DIR)) {
    const init = git(['init', '--bare', '--quiet', env.GIT_DIR]);
    if (init.code !== 0) throw fail(`cannot create the cache ${env.GIT_DIR}: ${tail(init.stderr)}`);
  }
  const fetch = git(['fetch', '--quiet', '--prune', '--no-tags', '--', fetchUrl, `+refs/heads/${req.branch}:refs/remotes/origin/${req.branch}`,
    '+refs/tags/*:refs/tags/*'], { timeoutMs: 15 * 60_000 });
  if (fetch.code !== 0) throw fail(`fetching ${req.branch} from the source failed: ${tail(fetch.stderr) || `git exited ${fetch.code}`}`);
  const tip = git(['rev-parse', '--verify', '--quiet', `refs/remotes/origin/${req.branch}^{commit}`]).stdout.trim();
  if (!tip) throw fail(`the source has no branch ${req.branch}`);
  run.commit = tip;

  // The release: the highest version-named annotated tag that peels to the tip.
  const tags = git(['for-each-ref', `--points-at=${tip}`, '--format=%(refname:strip=2) %(objecttype)', 'refs/tags']).stdout
    .split('\n').map((l) => l.split(' ')).filter(([name, type]) => type === 'tag' && parseVersion(name.replace(/^v/, '')));
  tags.sort((a, b) => compareVersions(parseVersion(b[0].replace(/^v/, '')), parseVersion(a[0].replace(/^v/, ''))));
  if (!tags.length) throw refuse(`the tip of ${req.branch} (${tip.slice(0, 12)}) has no annotated release tag v<version>`);
  const tag = tags[0][0];
  const version = tag.replace(/^v/, '');
  run.tag = tag; run.to = version;
  progress('verify', 20, `verifying the signature of ${tag}`);
  // git picks the verifier from the signature itself: an OpenPGP or X.509 one would go to gpg or gpgsm and pass
  // with any key in root's keyring. So only an SSH signature is verified, and the other programs are /bin/false
  // with an empty GNUPGHOME, should git ever see the signature otherwise.
  const id = git(['rev-parse', '--verify', '--quiet', `refs/tags/${tag}`]).stdout.trim();
  const tagObject = git(['cat-file', 'tag', id]).stdout;
  const kind = signatureKind(tagObject);
  if (kind !== 'SSH SIGNATURE') {
    const what = !kind ? 'it carries no signature' : `its signature is ${kind === 'SIGNED MESSAGE' ? 'X.509' : /^PGP /.test(kind) ? 'OpenPGP' : kind}`;
    throw refuse(`tag ${tag} is not signed by a pinned release key (${what}; releases are signed with an SSH key)`);
  }
  const gnupg = fs.mkdtempSync(path.join(opt.cache, 'gnupg-'));
  let verify;
  try {
    // Only the exit code: with a key that is not pinned, git still prints "Good signature" before failing.
    verify = sh(['git', '-c', 'gpg.format=ssh', '-c', `gpg.ssh.allowedSignersFile=${opt.signers}`, '-c', 'gpg.program=/bin/false',
      '-c', 'gpg.openpgp.program=/bin/false', '-c', 'gpg.x509.program=/bin/false', 'verify-tag', '--', id], { env: { ...env, GNUPGHOME: gnupg } });
  } finally { fs.rmSync(gnupg, { recursive: true, force: true }); }
  if (verify.code !== 0) throw refuse(`tag ${tag} is not signed by a pinned release key (${tail(verify.stderr, 2)})`);
  // The signed object must name itself: a signed v1.0.0 republished as refs/tags/v9.0.0 is not v9.0.0.
  const header = /^tag (\S+)$/m.exec(tagObject)?.[1];
  if (header !== tag) throw refuse(`the signed tag object is named ${header}, not ${tag}`);
  const message = tagObject.split('\n\n').slice(1).join('\n\n').replace(/-----BEGIN SSH SIGNATURE-----[\s\S]*$/, '').trim();
  if (message) console.log(`release notes of ${tag}:\n${message}`);

  // Versions and schema.
  const to = parseVersion(version), from = run.from ? parseVersion(run.from) : null;
  if (from && compareVersions(to, from) === 0 && fromDir && path.basename(fromDir) === version) {
    finish('up_to_date', `${version} is installed and running`);
  }
  const target = JSON.parse(git(['show', `${tip}:package.json`]).stdout || '{}');
  if (target.version !== version) throw refuse(`the tree of ${tag} is version ${target.version}, not ${version}`);
  let restoreFrom = null;
  if (from && compareVersions(to, from) < 0) {
    if (!req.allow_downgrade) throw refuse(`${version} is older than the running ${run.from}: a downgrade must be asked for (allow_downgrade)`);
    const schemaOf = (j) => (j && typeof j.schema === 'object' ? j.schema : null);
    const have = schemaOf(readJson(path.join(fromDir, 'release.json')));
    const want = schemaOf(JSON.parse(git(['show', `${tip}:release.json`]).stdout || 'null'));
    const crosses = !have || !want || Object.entries(have).some(([m, v]) => v > (want[m] ?? 0));
    if (crosses) {
      const backup = path.join(opt.prefix, 'backups', version);
      if (!req.restore_backup) {
        throw refuse(`${version} has an older database schema than ${run.from}: it can only be installed with the database backed up ` +
          `when ${version} was left (restore_backup${fs.existsSync(backup) ? '' : `; there is none in ${backup}`})`);
      }
      if (!fs.existsSync(path.join(backup, 'backup.json'))) throw refuse(`no database backup of ${version} in ${backup}`);
      restoreFrom = backup;
    }
  }

  // Space: the tree's bytes plus the database backup plus the margin, on the releases' file system.
  let treeBytes = 0;
  for (const l of git(['ls-tree', '-r', '-l', tip]).stdout.split('\n')) { const n = Number(l.split(/\s+/)[3]); if (n > 0) treeBytes += n; }
  let dbBytes = 0;
  for (const f of STORE_FILES) { try { dbBytes += fs.lstatSync(path.join(opt.data, f)).size; } catch { /* none yet */ } }
  const need = treeBytes + dbBytes + minFreeMb * 1048576;
  fs.mkdirSync(releases, { recursive: true, mode: 0o755 });
  const sfs = fs.statfsSync(releases);
  const free = sfs.bavail * sfs.bsize;
  if (free < need) {
    throw refuse(`not enough free space in ${releases}: ${Math.floor(free / 1048576)} MiB free, ${Math.ceil(need / 1048576)} MiB needed ` +
      `(release ${Math.ceil(treeBytes / 1048576)} MiB, database backup ${Math.ceil(dbBytes / 1048576)} MiB, margin ${minFreeMb} MiB)`);
  }

  // Unpack beside the running release.
  progress('unpack', 35, `unpacking ${tag} into ${releases}/${version}`);
  for (const n of fs.readdirSync(releases)) if (n.startsWith('.tmp-')) fs.rmSync(path.join(releases, n), { recursive: true, force: true });
  const tmp = fs.mkdtempSync(path.join(releases, `.tmp-${version}-`));
  try {
    await unpack(env, tip, tmp);
    const ok = sh(['chmod', '-R', 'u+w,go-w,a+rX', tmp]);
    if (ok.code !== 0) throw fail(`chmod failed: ${tail(ok.stderr)}`);
    fs.chmodSync(tmp, 0o755);
    if (!fs.existsSync(path.join(tmp, 'dist/src/main.js'))) throw refuse(`${tag} is not a built release (no dist/src/main.js)`);
    const dest = path.join(releases, version);
    if (fs.existsSync(dest)) fs.rmSync(dest, { recursive: true, force: true });
    fs.renameSync(tmp, dest);
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw e;
  }

  // Stop, back up, switch, start, check.
  progress('stop', 50, 'stopping the service (it checkpoints its database)');
  const stop = sh(STOP, { timeoutMs: 120_000 });
  if (stop.code !== 0) console.log(`stop exited ${stop.code}: ${tail(stop.stderr)}`);
  const backupDir = run.from ? path.join(opt.prefix, 'backups', run.from) : null;
  try {
    if (backupDir) { progress('backup', 55, `backing up the database to ${backupDir}`); backupStore(backupDir); }
    if (restoreFrom) { progress('restore', 58, `restoring the database backed up when ${version} was left`); restoreStore(restoreFrom); }
  } catch (e) {
    sh(START);
    throw fail(`backing up the database failed, nothing was switched: ${e.message}`);
  }
  const switchedAt = Math.floor(Date.now() / 1000);
  progress('switch', 60, `switching ${current} to releases/${version}`);
  switchTo(`releases/${version}`);
  progress('start', 65, `starting ${version}`);
  const start = sh(START, { timeoutMs: 300_000 });
  if (start.code !== 0) console.log(`start exited ${start.code}: ${tail(start.stderr)}`);
  progress('health', 70, `waiting up to ${healthTimeoutS} s for ${healthUrl ?? 'the service'} to answer ${version}`);
  if (await healthy(version)) {
    fs.appendFileSync(path.join(releases, '.history'), `${version}\n`);
    prune(version);
    finish('updated', `${run.from ?? 'nothing'} -> ${version}` + (message ? `: ${message.split('\n')[0]}` : ''));
  }

  // Roll back.
  const logs = sh([...LOGS, ...(process.env.NETPROBE_UPDATE_LOGS ? [] : ['--since', `@${switchedAt}`])]).stdout;
  const logTail = logs.split('\n').filter(Boolean).slice(-40);
  progress('rollback', 80, `${version} did not answer within ${healthTimeoutS} s: rolling back to ${run.from}`);
  sh(STOP, { timeoutMs: 120_000 });
  if (!run.from || !fromDir) throw fail(`${version} did not come up and there is no previous release to go back to`, { log_tail: logTail });
  // Whatever fails on the way back, the old release is switched to and started.
  let restoreError = null;
  try { if (backupDir) restoreStore(backupDir); } catch (e) { restoreError = e.message; }
  switchTo(path.relative(opt.prefix, fromDir));
  sh(START, { timeoutMs: 300_000 });
  const back = await healthy(run.from);
  const why = `${version} did not answer GET /api/version with its version within ${healthTimeoutS} s`;
  if (back && !restoreError) throw new Outcome('rolled_back', `${why}; back on ${run.from} with its database restored`, { log_tail: logTail });
  if (back) throw fail(`${why}; back on ${run.from}, but its database backup could not be restored: ${restoreError}`, { log_tail: logTail });
  throw fail(`${why}, and after switching back ${run.from} did not answer either` +
    (restoreError ? ` (the database backup could not be restored: ${restoreError})` : ''), { log_tail: logTail });
}

/** git archive | tar -x, both as children without a shell. */
function unpack(env, commit, dir) {
  return new Promise((resolve, reject) => {
    const archive = spawn('git', ['archive', '--format=tar', commit], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const tar = spawn('tar', ['-x', '--no-same-owner', '-C', dir], { stdio: ['pipe', 'ignore', 'pipe'] });
    tar.stdin.on('error', () => { /* tar stopped reading (the disk is full): its own error says why */ });
    archive.stdout.pipe(tar.stdin);
    let errors = '';
    archive.stderr.on('data', (c) => { errors += c; });
    tar.stderr.on('data', (c) => { errors += c; });
    const timer = setTimeout(() => { archive.kill('SIGKILL'); tar.kill('SIGKILL'); }, 15 * 60_000);
    let left = 2, bad = false;
    const done = (code) => {
      if (code !== 0) bad = true;
      if (--left) return;
      clearTimeout(timer);
      if (bad) reject(fail(`unpacking failed: ${tail(errors) || 'git archive or tar failed'}`)); else resolve();
    };
    archive.on('close', done);
    tar.on('close', done);
  });
}

/** Copies the store's files (the service user's regular files only) into dir, via dir.tmp + rename. */
function backupStore(dir) {
  const tmp = `${dir}.tmp`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true, mode: 0o700 });
  const files = [];
  try {
    for (const name of STORE_FILES) {
      let fd;
      try { fd = fs.openSync(path.join(opt.data, name), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK); } catch (e) {
        if (e.code === 'ENOENT') continue;
        throw e;
      }
      try {
        const st = fs.fstatSync(fd);
        if (!st.isFile() || st.uid !== dataOwner.uid) throw new Error(`${name} is not a regular file of the service user's`);
        copyFd(fd, path.join(tmp, name), 0o600);
        files.push({ name, mode: st.mode & 0o777 });
      } finally { fs.closeSync(fd); }
    }
    fs.writeFileSync(path.join(tmp, 'backup.json'), JSON.stringify({ version: run.from, at: new Date().toISOString(), files }) + '\n');
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(tmp, dir);
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}

function copyFd(fd, dest, mode) {
  const out = fs.openSync(dest, 'wx', mode);
  try { copyInto(fd, out); fs.fsyncSync(out); } finally { fs.closeSync(out); }
}

/** Copies from a freshly opened descriptor, reading on from its own offset. */
function copyInto(fd, out) {
  const buf = Buffer.alloc(1 << 20);
  let n;
  while ((n = fs.readSync(fd, buf, 0, buf.length, null)) > 0) fs.writeSync(out, buf, 0, n);
}

/** Puts a backup's files back into the data directory as the service user's; store files it lacks are removed. */
function restoreStore(dir) {
  const { files } = JSON.parse(fs.readFileSync(path.join(dir, 'backup.json'), 'utf8'));
  for (const name of STORE_FILES) {
    const f = files.find((x) => x.name === name);
    const dest = path.join(opt.data, name);
    if (!f) { fs.rmSync(dest, { force: true }); continue; }
    const tmp = path.join(opt.data, `.${name}.restore.tmp`);
    fs.rmSync(tmp, { force: true });
    const fd = fs.openSync(path.join(dir, name), 'r');
    try {
      // Mode and owner through the descriptor: the data directory is the service user's, and a link it puts
      // at tmp's name meanwhile must not get root to chown whatever the link points at.
      const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
      const out = fs.openSync(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
      try {
        copyInto(fd, out);
        fs.fchmodSync(out, f.mode); // before chown: root changes the mode of its own file without CAP_FOWNER
        fs.fchownSync(out, dataOwner.uid, dataOwner.gid);
        fs.fsyncSync(out);
        const written = fs.fstatSync(out), named = fs.lstatSync(tmp);
        if (written.ino !== named.ino || written.dev !== named.dev) throw new Error(`${tmp} was replaced while the backup was copied into it`);
      } finally { fs.closeSync(out); }
      fs.renameSync(tmp, dest);
    } finally {
      fs.closeSync(fd);
      fs.rmSync(tmp, { force: true });
    }
  }
  fsyncDir(opt.data);
}

function fsyncDir(dir) { const d = fs.openSync(dir, 'r'); try { fs.fsyncSync(d); } finally { fs.closeSync(d); } }

/** `current` -> target, atomically: a new link, renamed over the old one. */
function switchTo(target) {
  const next = path.join(opt.prefix, 'current.new');
  fs.rmSync(next, { force: true });
  fs.symlinkSync(target, next);
  fs.renameSync(next, path.join(opt.prefix, 'current'));
  fsyncDir(opt.prefix);
}

/** GET the health URL until it answers {version}; false after the bound. */
async function healthy(version) {
  if (!healthUrl) return false;
  const end = Date.now() + healthTimeoutS * 1000;
  while (Date.now() < end) {
    try {
      const r = await fetch(healthUrl, { signal: AbortSignal.timeout(3000), redirect: 'error' });
      if (r.ok && (await r.json()).version === version) return true;
    } catch { /* not up yet */ }
    await new Promise((res) => setTimeout(res, 500));
  }
  return false;
}

/** Keeps the running release and the two installed before it (and their backups); removes the rest. */
function prune(running) {
  const releases = path.join(opt.prefix, 'releases');
  const history = fs.readFileSync(path.join(releases, '.history'), 'utf8').split('\n').filter(Boolean);
  const keep = new Set([running]);
  for (const v of history.reverse()) if (keep.size < KEEP_PREVIOUS + 1 && fs.existsSync(path.join(releases, v))) keep.add(v);
  if (run.from) keep.add(run.from); // the release just left stays, whatever the history says
  for (const n of fs.readdirSync(releases)) {
    if (n.startsWith('.') || keep.has(n)) continue;
    fs.rmSync(path.join(releases, n), { recursive: true, force: true });
    fs.rmSync(path.join(opt.prefix, 'backups', n), { recursive: true, force: true });
    console.log(`pruned release ${n}`);
  }
  fs.writeFileSync(path.join(releases, '.history'), [...keep].reverse().join('\n') + '\n');
}

if (!/^https?:\/\/(127\.\d+\.\d+\.\d+|\[::1\]|localhost|\d+\.\d+\.\d+\.\d+|\[[0-9a-fA-F:]+\]):\d{1,5}\/api\/version$/.test(healthUrl ?? '')) {
  finish('refused', `the health URL ${String(healthUrl).slice(0, 100)} is not http://<address>:<port>/api/version`);
}
main().catch((e) => {
  if (e instanceof Outcome) finish(e.result, e.message, e.extra);
  finish('failed', `unexpected error: ${e?.stack ?? e}`);
});
