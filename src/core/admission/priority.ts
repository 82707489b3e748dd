/**
 * The Priority admission plugin (plugin/pkg/admission/priority). A new pod's
 * priorityClassName resolves to spec.priority and spec.preemptionPolicy
 * from its PriorityClass; a pod without one takes the globalDefault class
 * (the lowest-valued, should several claim it), or priority 0 and
 * PreemptLowerPriority when there is none. An unknown class, or a priority
 * or preemptionPolicy the pod states that differs from the class's, is a
 * 403. An update keeps the stored priority and policy when it drops them.
 * Validating: a second globalDefault PriorityClass is refused.
 * kube-apiserver also makes the two system classes at start
 * (bootstrapSystemPriorityClasses).
 */
import { isObject, type KubeObject } from '../api/types';
import { StatusError, newForbidden } from '../errors';
import type { Store } from '../registry/generic/store';
import type { Storage } from '../storage/interface';
import type { PluginAttributes } from './attributes';
import { cachedOrRead, newNamespacedCache } from './namespacedCache';

/** scheduling.SystemPriorityClasses: made by kube-apiserver's scheduling/bootstrap-system-priority-classes hook. */
export const systemPriorityClasses = [
  { name: 'system-node-critical', value: 2000001000, description: 'Used for system critical pods that must not be moved from their current node.' },
  { name: 'system-cluster-critical', value: 2000000000, description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.' },
];

/** Creates the system classes that are missing (an existing one is left as it is). */
export async function bootstrapSystemPriorityClasses(classes: Store): Promise<void> {
  for (const pc of systemPriorityClasses) {
    if (await classes.getKv('', pc.name)) continue;
    try {
      await classes.create('', { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: pc.name }, value: pc.value, description: pc.description });
    } catch (e) {
      if (!(e instanceof StatusError && e.reason === 'AlreadyExists')) throw e;
    }
  }
}

function defaultClass(classes: KubeObject[]): KubeObject | undefined {
  let found: KubeObject | undefined;
  for (const pc of classes) {
    if (pc['globalDefault'] !== true) continue;
    if (!found || Number(found['value']) > Number(pc['value'])) found = pc;
  }
  return found;
}

export interface PriorityPluginDeps {
  priorityClasses: Store;
  /** With it, the classes are read from an informer cache once start() synced it, as kube's lister reads them. */
  storage?: Storage;
}

export function createPriorityPlugin(deps: PriorityPluginDeps) {
  const cache = deps.storage ? newNamespacedCache(deps.storage, deps.priorityClasses) : undefined;
  const listClasses = async () => (await deps.priorityClasses.list('')).items;

  /** The class a pod names, from the cache; a class the cache has not seen yet (over etcd it trails a write) is read. */
  function namedClass(className: string): KubeObject | Promise<KubeObject | undefined> | undefined {
    if (cache) return cachedOrRead(cache, deps.priorityClasses, '', className);
    return deps.priorityClasses.getKv('', className).then((kv) => (kv ? deps.priorityClasses.decode(kv) : undefined));
  }

  /** Sets the pod's priority and preemption policy from its class (the globalDefault one when it names none). */
  function applyClass(attrs: PluginAttributes, spec: Record<string, unknown>, className: string, pc: KubeObject | undefined): void {
    if (className && !pc) throw newForbidden({ group: '', resource: 'pods' }, attrs.name, `no PriorityClass with name ${className} was found`);
    if (!className && pc) spec['priorityClassName'] = pc.metadata.name;
    const priority = pc ? Number(pc['value']) : 0;
    const policy = pc ? pc['preemptionPolicy'] : 'PreemptLowerPriority';
    if (typeof spec['priority'] === 'number' && spec['priority'] !== priority) {
      throw newForbidden({ group: '', resource: 'pods' }, attrs.name, `the integer value of priority (${spec['priority']}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`);
    }
    spec['priority'] = priority;
    if (typeof policy === 'string') {
      if (typeof spec['preemptionPolicy'] === 'string' && spec['preemptionPolicy'] !== policy) {
        throw newForbidden({ group: '', resource: 'pods' }, attrs.name, `the string value of PreemptionPolicy (${spec['preemptionPolicy']}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`);
      }
      spec['preemptionPolicy'] = policy;
    }
  }

  /** admitCreate: synchronous when the cache answers. */
  function admitCreate(attrs: PluginAttributes, spec: Record<string, unknown>): Promise<void> | undefined {
    const className = typeof spec['priorityClassName'] === 'string' ? spec['priorityClassName'] : '';
    if (className) {
      const pc = namedClass(className);
      if (pc instanceof Promise) return pc.then((found) => applyClass(attrs, spec, className, found));
      applyClass(attrs, spec, className, pc);
      return undefined;
    }
    if (cache?.synced) {
      applyClass(attrs, spec, '', defaultClass(cache.list('')));
      return undefined;
    }
    return listClasses().then((classes) => applyClass(attrs, spec, '', defaultClass(classes)));
  }

  return {
    /** Fills the cache (when the plugin has one). */
    async start(): Promise<void> {
      await cache?.start();
    },
    stop(): void {
      cache?.stop();
    },
    admit(attrs: PluginAttributes): Promise<void> | undefined {
      if (attrs.subresource || attrs.resource.group !== '' || attrs.resource.resource !== 'pods') return undefined;
      const spec = attrs.object && isObject(attrs.object['spec']) ? attrs.object['spec'] : undefined;
      if (!spec) return undefined;
      if (attrs.operation === 'CREATE') return admitCreate(attrs, spec);
      if (attrs.operation === 'UPDATE') {
        // Set on create: an update that leaves them out keeps them (validation refuses a change).
        const old = attrs.oldObject && isObject(attrs.oldObject['spec']) ? attrs.oldObject['spec'] : {};
        if (spec['priority'] === undefined && old['priority'] !== undefined) spec['priority'] = old['priority'];
        if (spec['preemptionPolicy'] === undefined && old['preemptionPolicy'] !== undefined) spec['preemptionPolicy'] = old['preemptionPolicy'];
      }
      return undefined;
    },
    /** validatePriorityClass: one globalDefault class at a time. */
    validate(attrs: PluginAttributes): Promise<void> | undefined {
      if (attrs.subresource || attrs.resource.group !== 'scheduling.k8s.io' || attrs.resource.resource !== 'priorityclasses') return undefined;
      if ((attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') || attrs.object?.['globalDefault'] !== true) return undefined;
      const name = attrs.object.metadata.name ?? '';
      return listClasses().then((classes) => {
        const dpc = defaultClass(classes);
        if (dpc && (attrs.operation === 'CREATE' || dpc.metadata.name !== name)) {
          throw newForbidden({ group: 'scheduling.k8s.io', resource: 'priorityclasses' }, attrs.name, `PriorityClass ${name} is marked as default and a default already exists`);
        }
      });
    },
  };
}

export type PriorityPlugin = ReturnType<typeof createPriorityPlugin>;
