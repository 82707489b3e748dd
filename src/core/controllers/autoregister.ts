/**
 * kube-apiserver's APIService autoregistration (kube-aggregator's
 * autoregister controller fed by kube-apiserver-autoregistration and the
 * crdregistration controller): an APIService for every served built-in group
 * version, labelled `kube-aggregator.kubernetes.io/automanaged: onstart`
 * (ensured once per start: a user may delete or edit one until the next
 * start), and one for every served version of every CRD, labelled
 * `automanaged: "true"` (kept in sync: created, put back, deleted when no CRD
 * serves it). APIServices without the label are the user's and left alone.
 */
import { jsonEqual } from '../api/equality';
import type { KubeObject } from '../api/types';
import { CRD_GROUP, CRD_RESOURCE, type CustomResourceDefinition } from '../apiextensions/types';
import { StatusError } from '../errors';
import { apiServiceName, apiServicePriority } from '../registry/apiServicePriorities';
import { CUSTOM_GROUP_PRIORITY } from '../registry/registry';
import type { NamespaceControllerDeps } from './namespace';
import type { RunningController } from './informer';
import { newWorkQueue } from './workqueue';

export const automanagedLabel = 'kube-aggregator.kubernetes.io/automanaged';
type SyncMode = 'onstart' | 'true';

/** What kube-apiserver registers for a group version (no service: served locally). */
export interface APIServiceSpec {
  group: string;
  version: string;
  groupPriorityMinimum: number;
  versionPriority: number;
}

interface Desired {
  spec: APIServiceSpec;
  mode: SyncMode;
}

/** The built-in group versions' APIServices, for the served group versions kube-apiserver has priorities for. */
export function builtinAPIServices(served: { name: string; versions: string[] }[]): APIServiceSpec[] {
  const out: APIServiceSpec[] = [];
  for (const g of served) {
    for (const version of g.versions) {
      const p = apiServicePriority(g.name, version);
      if (p) out.push({ group: g.name, version, groupPriorityMinimum: p.group, versionPriority: p.version });
    }
  }
  return out;
}

/** crdregistration: every served version of every CRD (its conditions aside) wants a low-priority local APIService. */
function crdAPIServices(crds: CustomResourceDefinition[]): Map<string, APIServiceSpec> {
  const out = new Map<string, APIServiceSpec>();
  for (const crd of crds) {
    for (const v of crd.spec.versions ?? []) {
      if (!v.served) continue;
      // CRDs sort among themselves like any kube versions: one version priority for all.
      out.set(apiServiceName(crd.spec.group, v.name), { group: crd.spec.group, version: v.name, groupPriorityMinimum: CUSTOM_GROUP_PRIORITY, versionPriority: 100 });
    }
  }
  return out;
}

const specOf = (obj: KubeObject): Record<string, unknown> => (obj['spec'] as Record<string, unknown> | undefined) ?? {};

export interface Autoregistration extends RunningController {
  /** The onstart APIServices' names, for the autoregister-completion check. */
  readonly onStart: string[];
}

/**
 * Starts the controller; `idle()` resolves once the first pass (every desired and existing APIService) is done.
 * Writes are kube-apiserver's (the stores given are its own).
 */
export function startAutoregistration(deps: NamespaceControllerDeps, builtin: APIServiceSpec[]): Autoregistration {
  const apiServicesType = deps.registry.resourceFor('apiregistration.k8s.io', 'v1', 'apiservices');
  const crdType = deps.registry.resourceFor(CRD_GROUP, 'v1', CRD_RESOURCE);
  const onStart = new Map<string, Desired>(builtin.map((spec) => [apiServiceName(spec.group, spec.version), { spec, mode: 'onstart' }]));
  if (!apiServicesType) return { onStart: [], stop() {}, idle: async () => {} };
  const apiServices = deps.storeFor(apiServicesType);
  const crds = crdType && deps.storeFor(crdType);
  let fromCrds = new Map<string, APIServiceSpec>();
  /** onstart-labelled APIServices that existed when the controller started: only those are updated or deleted once. */
  const atStart = new Set<string>();
  /** Names synced without error once: an onstart desire is acted on only then. */
  const synced = new Set<string>();

  const desiredFor = (name: string): Desired | undefined => {
    // A built-in APIService wins over a CRD's of the same name.
    const builtinDesire = onStart.get(name);
    if (builtinDesire) return builtinDesire;
    const spec = fromCrds.get(name);
    return spec && { spec, mode: 'true' };
  };

  async function check(name: string): Promise<void> {
    const desired = desiredFor(name);
    const kv = await apiServices.getKv('', name);
    const current = kv && apiServices.decode(kv);
    const hasSynced = synced.has(name);
    await act(name, desired, current, hasSynced);
    synced.add(name);
  }

  async function act(name: string, desired: Desired | undefined, current: KubeObject | undefined, hasSynced: boolean): Promise<void> {
    if (!current && !desired) return;
    if (desired?.mode === 'onstart' && hasSynced) return;
    if (!current) {
      const obj: KubeObject = {
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: { name, labels: { [automanagedLabel]: desired!.mode } },
        spec: { ...desired!.spec },
      };
      // Created meanwhile: the watch brings it back here.
      await apiServices.create('', obj).catch(ignore(409));
      return;
    }
    const mode = current.metadata.labels?.[automanagedLabel];
    if (mode !== 'onstart' && mode !== 'true') return;
    if (mode === 'onstart' && (!atStart.has(name) || hasSynced)) return;
    if (!desired) {
      await apiServices.delete('', name, { preconditions: { uid: current.metadata.uid } }).catch(ignore(404, 409));
      return;
    }
    if (jsonEqual(specOf(current), desired.spec)) return;
    await apiServices.update('', name, (cur) => {
      if (!cur || cur.metadata.uid !== current.metadata.uid) throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 409, reason: 'Conflict', message: 'changed' });
      return { ...cur, spec: { ...desired.spec } };
    }).catch(ignore(404, 409));
  }

  const queue = newWorkQueue('autoregister-controller', check);

  async function listCrds(): Promise<{ revision: number }> {
    if (!crds) return { revision: 0 };
    const listed = await crds.list('');
    const next = crdAPIServices(listed.items as CustomResourceDefinition[]);
    for (const name of new Set([...fromCrds.keys(), ...next.keys()])) {
      if (!jsonEqual(fromCrds.get(name), next.get(name))) queue.add(name);
    }
    fromCrds = next;
    return listed;
  }

  // One listing at a time, so a later CRD event's answer is never overwritten by an earlier one's.
  let listing = Promise.resolve();
  const relist = () => {
    listing = listing.then(() => listCrds()).then(() => undefined, () => undefined);
  };

  const stopped = new AbortController();
  const unsubscribes: (() => void)[] = [];
  const started = (async () => {
    // The CRDs' APIServices are known before the first pass, so it deletes none a CRD still serves.
    const crdList = await listCrds();
    const listed = await apiServices.list('');
    for (const obj of listed.items) if (obj.metadata.labels?.[automanagedLabel] === 'onstart') atStart.add(obj.metadata.name!);
    if (stopped.signal.aborted) return;
    unsubscribes.push(await deps.storage.watch(apiServices.prefix, listed.revision, (e) => queue.add(e.kv.key.slice(apiServices.prefix.length))));
    if (crds) unsubscribes.push(await deps.storage.watch(crds.prefix, crdList.revision, relist));
    for (const name of new Set([...onStart.keys(), ...fromCrds.keys(), ...listed.items.map((o) => o.metadata.name!)])) queue.add(name);
    if (stopped.signal.aborted) for (const u of unsubscribes) u();
  })().catch((e) => {
    if (!stopped.signal.aborted) console.error('kubesim: autoregister controller start:', e);
  });

  return {
    onStart: [...onStart.keys()],
    async idle() {
      await started;
      await listing;
      await queue.idle();
    },
    stop() {
      stopped.abort();
      queue.stop();
      for (const u of unsubscribes) u();
    },
  };
}

const ignore = (...codes: number[]) => (e: unknown): void => {
  if (!(e instanceof StatusError && codes.includes(e.code))) throw e;
};
