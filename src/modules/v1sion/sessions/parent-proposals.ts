// Monitor parents proposed from a saved session (parent-tree.ts does the graph), compared with the parents
// the monitors have now, and applied through the monitors service, which never replaces parents a person
// set (monitors/service.ts, applyProposedParents). Nothing is stored here: a proposal is made again from
// the session and the monitors whenever it is read or applied.
import type { Actor } from '../../../core/audit/types.js';
import type { AppContext } from '../../../core/context.js';
import type { ProposedParentsOutcome } from '../../monitors/contracts.js';
import { monitorGlances, monitorsServiceOf } from '../../monitors/index.js';
import { parentTree, type ParentProposal, type ProbePosition, type TreeEdge, type TreeMonitor } from './parent-tree.js';
import { probePosition } from './probe-position.js';
import type { SessionService } from './service.js';

export const PROPOSAL_STATUSES = ['new', 'changed', 'applied', 'conflict', 'none'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];

interface MonitorRef { id: string; name: string }
export interface ProposalOut {
  monitor: TreeMonitor;
  node: { id: string; label: string };
  parents: MonitorRef[];
  current: { parents: MonitorRef[]; set_by: 'person' | 'proposal' | null };
  status: ProposalStatus;
  why: string;
  path: { node_id: string; label: string; port: string | null; own_port: string | null; source: string | null }[];
}
export interface ProposalsOut {
  session_id: string;
  root: { node_id: string; label: string; why: string } | null;
  problem: string | null;
  proposals: ProposalOut[];
  unmatched: { monitor: TreeMonitor; why: string }[];
  counts: Record<ProposalStatus, number> & { not_in_session: number };
}
export interface ApplyOut {
  applied: number;
  results: { monitor_id: string; outcome: ProposedParentsOutcome['outcome'] | 'not_proposed'; message: string | null }[];
}

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));

export class ParentProposals {
  constructor(private readonly app: AppContext, private readonly sessions: SessionService,
    private readonly position: () => ProbePosition = probePosition) {}

  list(sessionId: string, root?: string): ProposalsOut {
    const session = this.sessions.get(sessionId);
    const glances = monitorGlances(this.app);
    const monitors: TreeMonitor[] = glances.map((g) => ({ id: g.id, name: g.name, check_type: g.check_type, address: g.address }));
    const nameOf = new Map(glances.map((g) => [g.id, g.name]));
    const ref = (id: string): MonitorRef => ({ id, name: nameOf.get(id) ?? id });
    const edges: TreeEdge[] = [
      ...session.edges,
      ...session.l3_edges.map((e) => ({ from: e.from, to: e.to, from_port: null, to_port: null, source: 'route' as const })),
    ];
    const tree = parentTree(session.nodes, edges, monitors, { ...this.position(), node: root });
    const setBy = monitorsServiceOf(this.app).parentsSetBy();
    const proposals = tree.proposals.map((p) => out(p, setBy.get(p.monitor.id), ref));
    const counts = { new: 0, changed: 0, applied: 0, conflict: 0, none: 0, not_in_session: 0 };
    for (const p of proposals) counts[p.status]++;
    counts.not_in_session = monitors.length - proposals.length - tree.unmatched.length;
    return {
      session_id: session.id,
      root: tree.root && { node_id: tree.root.node, label: tree.root.label, why: tree.root.why },
      problem: tree.problem, proposals, unmatched: tree.unmatched, counts,
    };
  }

  /** Applies the proposals of the given monitors, or every one that is new or changed ('all'). */
  async apply(sessionId: string, which: readonly string[] | 'all', root: string | undefined, by: Actor): Promise<ApplyOut> {
    const listed = this.list(sessionId, root);
    const byId = new Map(listed.proposals.map((p) => [p.monitor.id, p]));
    const chosen = which === 'all'
      ? listed.proposals.filter((p) => p.status === 'new' || p.status === 'changed')
      : [...new Set(which.map((id) => id.toLowerCase()))].flatMap((id) => byId.get(id) ?? []);
    const outcomes = chosen.length
      ? await monitorsServiceOf(this.app).applyProposedParents(
        chosen.map((p) => ({ id: p.monitor.id, parents: p.parents.map((x) => x.id), why: p.why })), `session:${listed.session_id}`, by)
      : [];
    const results: ApplyOut['results'] = outcomes.map((o) => ({ monitor_id: o.id, outcome: o.outcome, message: o.message ?? null }));
    if (which !== 'all') {
      for (const id of which) {
        if (!byId.has(id.toLowerCase())) {
          results.push({ monitor_id: id, outcome: 'not_proposed', message: 'No proposal for this monitor in this session' });
        }
      }
    }
    return { applied: results.filter((r) => r.outcome === 'applied').length, results };
  }
}

function out(p: ParentProposal, now: { parents: string[]; set_by: 'person' | 'proposal' } | undefined,
  ref: (id: string) => MonitorRef): ProposalOut {
  const proposed = p.parents.map((m) => m.id);
  const current = now?.parents ?? [];
  let status: ProposalStatus;
  if (!current.length) status = proposed.length ? 'new' : 'none';
  else if (same(current, proposed)) status = 'applied';
  else if (now!.set_by === 'person') status = proposed.length ? 'conflict' : 'none';
  else status = 'changed';
  return {
    monitor: p.monitor, node: p.node, parents: p.parents.map((m) => ({ id: m.id, name: m.name })),
    current: { parents: current.map(ref), set_by: now?.set_by ?? null }, status, why: p.why,
    path: p.path.map((s) => ({ node_id: s.node, label: s.label, port: s.port, own_port: s.own_port, source: s.source })),
  };
}
