// The update source: which git URLs are accepted, and how a token reaches git without ever being in a URL,
// in argv or in a git config file on disk (GIT_CONFIG_COUNT/KEY/VALUE: an http.<url>.extraHeader that git
// reads from its environment only; git >= 2.31).

/** Transports git may use for the source; ext:: and the like stay off (GIT_ALLOW_PROTOCOL). */
export const ALLOWED_PROTOCOLS = 'https:http:git:ssh:file';
export const SOURCE_URL_HINT = 'Must be an https://, http://, git://, ssh:// or file:// URL without a user name or password in it ' +
  '(set those with POST /api/update/credentials)';

/** Why `url` cannot be the source, or null when it can. */
export function sourceUrlProblem(url: string): string | null {
  // eslint-disable-next-line no-control-regex -- control characters and spaces are what is refused
  if (/[\u0000-\u0020\u007f]/.test(url)) return 'Must not contain spaces or control characters';
  let u: URL;
  try { u = new URL(url); } catch { return SOURCE_URL_HINT; }
  if (!['https:', 'http:', 'git:', 'ssh:', 'file:'].includes(u.protocol)) return SOURCE_URL_HINT;
  if (u.password) return 'Must not contain a password: set the token with POST /api/update/credentials';
  // ssh://git@host/... names the account to log in as, which is not a secret; anything else keeps users out.
  if (u.username && u.protocol !== 'ssh:') return 'Must not contain a user name: set it with POST /api/update/credentials';
  if (u.protocol === 'file:') {
    if (u.host) return 'A file:// URL names a local path: file:///srv/netprobe.git';
  } else if (!u.hostname) return 'Must name a host';
  if (u.search || u.hash) return 'Must not have a query or a fragment';
  return null;
}

export interface SourceCredentials {
  username: string | null;
  token: string;
}

/** The Authorization header value: Basic with a user name, else Bearer. */
export function authorizationValue(c: SourceCredentials): string {
  return c.username
    ? `Basic ${Buffer.from(`${c.username}:${c.token}`, 'utf8').toString('base64')}`
    : `Bearer ${c.token}`;
}

/**
 * The environment a git child needs for `url`: no prompt (a missing credential fails at once instead of
 * waiting for a terminal), the allowed transports only, ssh without questions, and the credential (only for
 * http(s), only for this URL) as configuration from the environment.
 */
export function gitEnv(url: string, creds: SourceCredentials | null, globalConfig?: string): Record<string, string> {
  const env: Record<string, string> = {
    GIT_TERMINAL_PROMPT: '0',
    GIT_ALLOW_PROTOCOL: ALLOWED_PROTOCOLS,
    GIT_SSH_COMMAND: 'ssh -o BatchMode=yes -o ConnectTimeout=15',
    GIT_ASKPASS: '/bin/false',
    SSH_ASKPASS: '/bin/false',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_COUNT: '0',
  };
  if (globalConfig) env.GIT_CONFIG_GLOBAL = globalConfig;
  if (creds && /^https?:/.test(url)) {
    env.GIT_CONFIG_COUNT = '1';
    env.GIT_CONFIG_KEY_0 = `http.${url}.extraHeader`;
    env.GIT_CONFIG_VALUE_0 = `Authorization: ${authorizationValue(creds)}`;
  }
  return env;
}

/** git's messages name the URL; a credential never reaches them, but a URL's userinfo would: strip any. */
export function redactUrl(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, '$1');
}

/**
 * The git configuration a local (file://) source needs: it is someone else's repository (root's, an
 * administrator's), which git refuses to serve to this user ("dubious ownership") unless it is named in
 * safe.directory. That is safe in this direction: the service only reads it through upload-pack, which runs
 * no hooks (the root helper never does this for a repository the service could own). It has to be a file
 * (GIT_CONFIG_GLOBAL): git clears GIT_CONFIG_COUNT and -c for the upload-pack of a local transport. No secret.
 */
export function localSourceConfig(url: string): string | null {
  if (!url.startsWith('file://')) return null;
  const dir = decodeURIComponent(new URL(url).pathname).replace(/\/+$/, '');
  const q = (v: string) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  return `[safe]\n\tdirectory = ${q(dir)}\n\tdirectory = ${q(`${dir}/.git`)}\n`;
}
