// What a discovery stage is: a file under scan/stages/ that declares what it needs, what it adds and its
// share of the progress, and either runs once over the scan (`run`) or once per live host (`perHost`).
// The pipeline (scan/pipeline.ts) runs the phases in order and, inside a phase, starts each stage as
// soon as the earlier stages that add what it needs have finished; stages with nothing between them run
// at once (the four liveness sources).
import type { AppContext } from '../../../../core/context.js';
import type { ScanHost, ScanResult } from '../result.js';
import type { ScanPlan, ScanState } from '../state.js';

/** The phases, in order; each starts with a `phase` message once every stage of the one before has finished. */
export const PHASES = ['liveness', 'identify', 'neighbours'] as const;
export type Phase = (typeof PHASES)[number];

/**
 * The request's inputs a stage may need; a stage needing one the scan does not have is skipped:
 * `addresses` to sweep one by one, the probe's own `links` inside the subnet, and `credentials`
 * (SNMP is on; the list may be empty: the engine probe needs none).
 */
export const INPUTS = ['addresses', 'links', 'credentials'] as const;
export type Input = (typeof INPUTS)[number];

/**
 * What stages hand on: `hosts` (live hosts, ScanState.hosts), `neighbours` (hosts the kernel's neighbour
 * table confirmed), `macs` (every host's MAC that the neighbour table knows), `snmp_answers` (work.answers),
 * `agents` (work.agents), `tables` (work.tables), `devices` (result.devices, links and each host's
 * device_id), `routes` (result.routes), `advertised` (work.advertised: what mDNS/DNS-SD and SSDP answered on the links).
 */
export const PRODUCTS = ['hosts', 'neighbours', 'macs', 'snmp_answers', 'agents', 'tables', 'devices', 'routes', 'advertised'] as const;
export type Product = (typeof PRODUCTS)[number];

/** The discovery settings a stage may read (config `discovery`, read once at the scan's start). */
export interface StageSettings {
  tcpPorts: number[];
  reverseDns: boolean;
  dnsServers: string[];
  snmpTiming: { timeout_ms: number; retries: number };
}

export interface StageContext {
  app: AppContext;
  settings: StageSettings;
  plan: ScanPlan;
  state: ScanState;
  /** The job's cancel: every connect, lookup and program of a stage listens to it. */
  signal: AbortSignal;
  /** How far this stage is (0..1); the pipeline turns it into the scan's progress by the stage's weight. */
  progress(fraction: number): void;
  /** Sends an SSE message of the scan (`link`, ...); `phase`, `progress` and `host` are the pipeline's. */
  emit(type: string, data: Record<string, unknown>): void;
  /** A source that failed: a warning `what: error` in the result (none once cancelled); the scan goes on. */
  fail(what: string, e: unknown): void;
}

/** A per-host stage, prepared once with the live hosts (a batch lookup starts here), then run on each. */
export interface HostRun {
  each(host: ScanHost): Promise<void>;
  /** After every host (also when cancelled): what the stage writes once per scan. */
  done?(): void;
}

export interface Stage {
  /** The file's name. */
  name: string;
  phase: Phase;
  needs: readonly (Input | Product)[];
  adds: {
    products?: readonly Product[];
    /** The host fields it fills. */
    host?: readonly (keyof ScanHost)[];
    /** The result fields it fills. */
    result?: readonly (keyof ScanResult)[];
  };
  /** Its share of the scan's progress, against the other stages' weights. */
  weight: number;
  run?(ctx: StageContext): Promise<void>;
  /**
   * Once per live host (at most 32 hosts at once). A host's `host` message and `v1sion.device.discovered`
   * event go out when it has passed every per-host stage that runs, so a stage whose finding must travel
   * with them is a per-host stage, listed after the stages that add what it needs (one in the neighbours
   * phase holds every host's message until then).
   */
  perHost?(ctx: StageContext, live: readonly string[]): HostRun;
}
