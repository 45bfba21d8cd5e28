// The lazy loader of ssh2 (pure JavaScript SSH), shared by the key checks and the session.
/** ssh2 costs about 14 MiB of memory once loaded: it is loaded when a key or a device first needs it. */
let ssh2Module: Promise<typeof import('ssh2')> | undefined;
export const ssh2 = () => (ssh2Module ??= import('ssh2').then((m) => ((m as { default?: typeof import('ssh2') }).default ?? m)));
