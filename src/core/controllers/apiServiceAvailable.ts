/**
 * kube-aggregator's APIService availability controllers, as far as this
 * server can tell: a local APIService (no service) is always Available
 * (reason Local); one backed by a service whose group version this server
 * answers in-process (metrics.k8s.io with simulated nodes) passes its checks
 * (reason Passed). Other service-backed APIServices are left as they are.
 * Status writes go through the status subresource, kube-apiserver's.
 */
import { jsonEqual } from '../api/equality';
import { formatTime, type KubeObject } from '../api/types';
import { StatusError } from '../errors';
import type { NamespaceControllerDeps } from './namespace';
import { watchInto, type RunningController } from './informer';
import { newWorkQueue } from './workqueue';

interface APIServiceCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** The reasons kube-aggregator's local and remote availability controllers give an available APIService. */
const local = { reason: 'Local', message: 'Local APIServices are always available' };
const passed = { reason: 'Passed', message: 'all checks passed' };

export interface APIServiceAvailability extends RunningController {
  /** Names seen Available at least once since start (autoregister-completion). */
  readonly seenAvailable: ReadonlySet<string>;
}

export function startAPIServiceAvailability(deps: NamespaceControllerDeps): APIServiceAvailability {
  const seenAvailable = new Set<string>();
  const type = deps.registry.resourceFor('apiregistration.k8s.io', 'v1', 'apiservices');
  if (!type) return { seenAvailable, stop() {}, idle: async () => {} };
  const apiServices = deps.storeFor(type);

  /** The Available condition this server can vouch for, or undefined to leave the status alone. */
  function availability(obj: KubeObject): { reason: string; message: string } | undefined {
    const spec = (obj['spec'] ?? {}) as { service?: unknown; group?: string; version?: string };
    if (spec.service === undefined || spec.service === null) return local;
    return deps.registry.isServed(spec.group ?? '', spec.version ?? '') ? passed : undefined;
  }

  async function sync(key: string): Promise<void> {
    const name = key.slice(1);
    const kv = await apiServices.getKv('', name);
    if (!kv) return;
    const obj = apiServices.decode(kv);
    const want = availability(obj);
    const conditions = ((obj['status'] as { conditions?: APIServiceCondition[] } | undefined)?.conditions ?? []);
    if (!want) {
      if (conditions.some((c) => c.type === 'Available' && c.status === 'True')) seenAvailable.add(name);
      return;
    }
    const next = setCondition(conditions, { type: 'Available', status: 'True', lastTransitionTime: formatTime(deps.clock.now()), ...want });
    if (!jsonEqual(next, conditions)) {
      await apiServices.update('', name, (cur) => {
        if (!cur || cur.metadata.uid !== obj.metadata.uid) throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 404, reason: 'NotFound', message: 'gone' });
        const status = (cur['status'] ?? {}) as { conditions?: APIServiceCondition[] };
        return { ...cur, status: { ...status, conditions: setCondition(status.conditions ?? [], next.find((c) => c.type === 'Available')!) } };
      }, { subresource: 'status' }).catch((e: unknown) => {
        // Deleted or replaced meanwhile: its own event brings the new one here.
        if (!(e instanceof StatusError && (e.code === 404 || e.code === 409))) throw e;
      });
    }
    seenAvailable.add(name);
  }

  const running = watchInto(deps, newWorkQueue('apiservice-status-available-controller', sync), apiServices, []);
  return { seenAvailable, stop: running.stop, idle: running.idle };
}

/** SetAPIServiceCondition: the transition time moves only when the status changes. */
function setCondition(conditions: APIServiceCondition[], c: APIServiceCondition): APIServiceCondition[] {
  const existing = conditions.find((x) => x.type === c.type);
  if (!existing) return [...conditions, c];
  return conditions.map((x) => (x !== existing ? x : {
    ...x,
    status: c.status,
    lastTransitionTime: x.status !== c.status ? c.lastTransitionTime : x.lastTransitionTime,
    reason: c.reason,
    message: c.message,
  }));
}
