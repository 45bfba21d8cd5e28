#!/usr/bin/env node
// Stands in for `systemctl stop|start netprobe.service` when the update helper runs without systemd (the
// integration tests): starts <prefix>/current/dist/src/main.js detached, its output appended to
// <state>/service.log, its pid in <state>/service.pid; stop sends SIGTERM and waits for the exit, as
// systemd does (SIGKILL after 10 s). Configured through SUP_PREFIX, SUP_DATA, SUP_PORT, SUP_STATE.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const [cmd] = process.argv.slice(2);
const { SUP_PREFIX: prefix, SUP_DATA: data, SUP_PORT: port, SUP_STATE: state } = process.env;
const pidFile = path.join(state, 'service.pid');
const alive = (pid) => {
  try { process.kill(pid, 0); } catch { return false; }
  try { return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')); } catch { return false; } // a zombie has exited
};

if (cmd === 'start') {
  const log = fs.openSync(path.join(state, 'service.log'), 'a');
  const child = spawn(process.execPath, [path.join(prefix, 'current/dist/src/main.js')], {
    detached: true, stdio: ['ignore', log, log],
    env: { PATH: process.env.PATH, NETPROBE_DATA_DIR: data, NETPROBE_PORT: port },
  });
  fs.writeFileSync(pidFile, String(child.pid));
  child.unref();
} else if (cmd === 'stop') {
  const pid = Number(fs.existsSync(pidFile) ? fs.readFileSync(pidFile, 'utf8') : 0);
  if (pid && alive(pid)) {
    process.kill(pid, 'SIGTERM');
    const end = Date.now() + 10_000;
    while (alive(pid) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
  fs.rmSync(pidFile, { force: true });
} else {
  console.error('usage: supervisor.mjs start|stop');
  process.exit(2);
}
