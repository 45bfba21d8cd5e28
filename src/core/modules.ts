// How feature modules fit together: the order they register in comes from what each declares it needs
// (Module.needs), and a module's services reach another module through a slot that refuses, loudly,
// to hand out a service whose module was never registered.
import type { AppContext, Module } from './context.js';

/**
 * The modules in an order where each comes after everything it needs, keeping the given order where
 * needs do not decide. Throws naming the module when a need is not among the modules, or needs loop.
 */
export function orderModules(modules: readonly Module[]): Module[] {
  const byName = new Map(modules.map((m) => [m.name, m]));
  const out: Module[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (m: Module, path: string[]): void => {
    if (state.get(m.name) === 'done') return;
    if (state.get(m.name) === 'visiting') throw new Error(`modules need each other in a loop: ${[...path, m.name].join(' -> ')}`);
    state.set(m.name, 'visiting');
    for (const need of m.needs ?? []) {
      const dep = byName.get(need);
      if (!dep) throw new Error(`module ${m.name} needs module ${need}, which is not registered`);
      visit(dep, [...path, m.name]);
    }
    state.set(m.name, 'done');
    out.push(m);
  };
  for (const m of modules) visit(m, []);
  return out;
}

export interface ServiceSlot<T> {
  /** Called by the owning module's register(). */
  set(app: AppContext, service: T): void;
  /** The service; throws when the owning module is not registered in this app (a missing `needs`). */
  of(app: AppContext): T;
  /** The service, or undefined when its module is not registered (a module it `uses`, not `needs`). */
  find(app: AppContext): T | undefined;
}

/** Where a module keeps a service for other modules (and tests) to look up by app. */
export function serviceSlot<T>(module: string, what: string): ServiceSlot<T> {
  const services = new WeakMap<AppContext, T>();
  return {
    set(app, service) { services.set(app, service); },
    of(app) {
      const s = services.get(app);
      if (s === undefined) throw new Error(`${what} is not available: the ${module} module is not registered (declare it in needs)`);
      return s;
    },
    find(app) { return services.get(app); },
  };
}
