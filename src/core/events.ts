// In-process typed event bus. Modules declare their events by augmenting EventMap:
//   declare module '../../core/events.js' { interface EventMap { 'monitor.down': MonitorDown } }
// A failing listener is logged and never breaks the emitter or the other listeners.

export interface EventMap {
  'audit.recorded': { id: string; action: string; actor: string | null; target: string | null };
  'config.changed': { keys: string[] };
}

export type EventName = keyof EventMap;
type Listener<K extends EventName> = (payload: EventMap[K]) => void | Promise<void>;

export class EventBus {
  private listeners = new Map<EventName, Set<Listener<any>>>();
  constructor(private onError: (event: string, err: unknown) => void = () => {}) {}

  on<K extends EventName>(event: K, fn: Listener<K>): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(fn);
    return () => { set!.delete(fn); };
  }

  emit<K extends EventName>(event: K, payload: EventMap[K]): void {
    const set = this.listeners.get(event);
    if (!set) return;
    for (const fn of [...set]) {
      try {
        const r = fn(payload);
        if (r && typeof (r as Promise<void>).catch === 'function') (r as Promise<void>).catch((e) => this.onError(event, e));
      } catch (e) {
        this.onError(event, e);
      }
    }
  }

  listenerCount(event: EventName): number { return this.listeners.get(event)?.size ?? 0; }
}
