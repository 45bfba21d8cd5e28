// Composition root: config -> log -> store -> services -> modules -> http -> schedulers; signals.
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AddressInfo } from 'node:net';
import { createAudit } from './core/audit/index.js';
import { createAuth } from './core/auth/index.js';
import { systemClock, type Clock } from './core/clock.js';
import { ConfigService, type ConfigSections } from './core/config/index.js';
import type { AppContext, Module } from './core/context.js';
import { EventBus } from './core/events.js';
import { createHttpApp, type HttpApp } from './core/http/app.js';
import { RouteRegistry } from './core/http/registry.js';
import { JobManager } from './core/jobs.js';
import { Logger } from './core/log.js';
import { orderModules } from './core/modules.js';
import { createNotifier } from './core/notify.js';
import { packageRoot, packageVersion } from './core/paths.js';
import { coreMigrations } from './core/schema.js';
import { openSecretBox } from './core/secretbox.js';
import { openStore } from './core/store/index.js';
import { brainModule } from './modules/brain/index.js';
import { monitorsModule } from './modules/monitors/index.js';
import { snmpModule } from './modules/snmp/index.js';
import { systemModule } from './modules/system/index.js';
import { v1sionModule } from './modules/v1sion/index.js';
import { webhooksModule } from './modules/webhooks/index.js';

/** The feature modules, registered so that each comes after what it needs (Module.needs). */
export const MODULES: Module[] = orderModules([systemModule, monitorsModule, brainModule, snmpModule, webhooksModule, v1sionModule]);

/** Every module's configuration section, by name. */
export const configSections = (): ConfigSections => Object.assign({}, ...MODULES.map((m) => m.config ?? {}));

/** Every migration the service applies: core, then each module's range. */
export const MIGRATIONS = [...coreMigrations, ...MODULES.flatMap((m) => m.migrations)];

export interface ServiceOptions {
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  /** Where log lines go (default stdout). */
  logWrite?: (line: string) => void;
}

export interface Service {
  app: AppContext;
  http: HttpApp;
  /** Listens on the configured port and host unless given; resolves with the bound address. */
  listen(port?: number, host?: string): Promise<AddressInfo>;
  /** Graceful stop: stop accepting, finish in-flight requests, run shutdown hooks, checkpoint the store. */
  shutdown(reason?: string): Promise<void>;
}

export async function startService(opts: ServiceOptions = {}): Promise<Service> {
  // ms since the process started: what loading the code took (tests start several services in one process).
  const loadedMs = Math.round(performance.now());
  const env = opts.env ?? process.env;
  const clock = opts.clock ?? systemClock;
  const log = Logger.create({ write: opts.logWrite });
  const config = await ConfigService.load({ env, log: log.child('config'), sections: configSections() });
  const cfg = config.get();
  log.setLevel(cfg.log.level);
  log.setCapacity(cfg.log.buffer);

  const secretbox = await openSecretBox(config.dataDir, log.child('secretbox'));
  // Secrets in the configuration file are sealed under the machine key: open them before anything reads them.
  config.attachSecretBox(secretbox);
  const store = await openStore({
    dir: config.dataDir,
    migrations: MIGRATIONS,
    checkpointBytes: cfg.store.checkpoint_mb * 1024 * 1024,
    checkpointAgeMs: cfg.store.checkpoint_age_minutes * 60_000,
    snapshotBytesPerMinute: cfg.store.snapshot_kib_per_minute * 1024,
    groupCommitMs: cfg.store.group_commit_ms,
    now: () => clock.now(),
    log: (level, msg, fields) => log.child('store').log(level, msg, fields),
  });

  const shutdownHooks: (() => Promise<void> | void)[] = [];
  const bus = new EventBus((event, err) => log.child('events').error(`listener for ${event} failed`, { err: err as Error }));
  const audit = createAudit(store, clock, bus);
  const auth = createAuth({ store, config, clock, log: log.child('auth') });

  const app: AppContext = {
    version: packageVersion(),
    startedAt: clock.now(),
    config, store, bus, log, clock,
    jobs: new JobManager({ clock, log: log.child('jobs') }),
    routes: new RouteRegistry(),
    auth,
    audit,
    secretbox,
    onShutdown: (fn) => { shutdownHooks.push(fn); },
  };

  config.onChange((c, keys) => {
    log.setLevel(c.log.level);
    log.setCapacity(c.log.buffer);
    bus.emit('config.changed', { keys });
  });

  for (const m of MODULES) await m.register(app);
  await auth.bootstrap.ensureInitialAdmin(app);

  const http = createHttpApp(app, { uiDir: join(packageRoot(), 'ui') });
  let stopping: Promise<void> | undefined;

  const service: Service = {
    app,
    http,
    async listen(port = cfg.server.port, host = cfg.server.host) {
      await new Promise<void>((resolve, reject) => {
        http.server.once('error', reject);
        http.server.listen(port, host, () => { http.server.off('error', reject); resolve(); });
      });
      const addr = http.server.address() as AddressInfo;
      log.info(`netprobe ${app.version} listening on http://${addr.address}:${addr.port}`,
        { data_dir: config.dataDir, code_loaded_ms: loadedMs, startup_ms: Math.round(performance.now()) });
      // HTTPS beside it (tls.https_port; any free port when HTTP was given port 0, as tests do): a failure is
      // logged and HTTP keeps serving.
      const tlsAddr = await http.listenHttps(host, port === 0);
      if (tlsAddr) log.info(`listening on https://${tlsAddr.address}:${tlsAddr.port}`);
      for (const m of MODULES) await m.start?.(app);
      return addr;
    },
    shutdown(reason = 'shutdown') {
      stopping ??= (async () => {
        log.info(`stopping (${reason})`);
        await http.close();
        await app.jobs.shutdown();
        for (const fn of shutdownHooks.reverse()) {
          try { await fn(); } catch (e) { log.error('shutdown hook failed', { err: e as Error }); }
        }
        await store.close();
        log.info('stopped; store checkpointed');
      })();
      return stopping;
    },
  };
  return service;
}


/** The exit status after POST /api/restart: systemd/netprobe.service counts it a success and restarts (Restart=always). */
export const RESTART_EXIT_CODE = 75;

async function runFromCommandLine(): Promise<void> {
  const service = await startService();
  const { log, bus, clock } = service.app;
  const systemd = createNotifier({ env: process.env, clock, log: log.child('systemd') });
  const stop = (reason: string, code = 0) => {
    Promise.all([systemd.stopping(reason), service.shutdown(reason)])
      .then(() => process.exit(code), (e) => { log.error('shutdown failed', { err: e }); process.exit(1); });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  bus.on('system.restart', ({ actor }) => stop(`restart requested by ${actor ?? 'unknown'}`, RESTART_EXIT_CODE));
  process.on('uncaughtException', (e) => {
    log.error('uncaught exception; exiting so the supervisor restarts us', { err: e }); process.exit(1);
  });
  process.on('unhandledRejection', (e) => { log.error('unhandled rejection', { err: e as Error }); });
  const addr = await service.listen();
  await systemd.ready(`listening on ${addr.address}:${addr.port}`);
}

// Started as a program (node dist/src/main.js), not imported by tests or benchmarks.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  runFromCommandLine().catch((e) => { console.error('netprobe failed to start:', e); process.exit(1); });
}
