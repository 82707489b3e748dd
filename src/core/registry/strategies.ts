/**
 * Per-resource strategies for built-in kinds. Resources not listed get the
 * generic behaviour: status (when the kind has a status subresource) is
 * ignored on main-resource writes and is the only thing status writes change.
 */
import { isObject, type KubeObject } from '../api/types';
import { required, type FieldError } from '../errors';
import type { ResourceStrategy, StrategyContext } from './generic/strategy';
import type { ResourceType } from './types';

/** Kinds whose strategies maintain metadata.generation. */
const withGeneration = new Set([
  'apps/deployments', 'apps/replicasets', 'apps/statefulsets', 'apps/daemonsets', 'apps/controllerrevisions',
  'batch/jobs', 'batch/cronjobs', '/replicationcontrollers', '/pods',
  'autoscaling/horizontalpodautoscalers', 'policy/poddisruptionbudgets',
  'networking.k8s.io/networkpolicies', 'networking.k8s.io/ingresses',
  'apiextensions.k8s.io/customresourcedefinitions',
  'admissionregistration.k8s.io/validatingadmissionpolicies', 'admissionregistration.k8s.io/validatingadmissionpolicybindings',
  'admissionregistration.k8s.io/mutatingadmissionpolicies', 'admissionregistration.k8s.io/mutatingadmissionpolicybindings',
  'admissionregistration.k8s.io/validatingwebhookconfigurations', 'admissionregistration.k8s.io/mutatingwebhookconfigurations',
  'flowcontrol.apiserver.k8s.io/flowschemas', 'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations',
  'resource.k8s.io/resourceclaims', 'resource.k8s.io/deviceclasses', 'resource.k8s.io/resourceslices',
]);

/** Kinds whose PUT of a missing object creates it (AllowCreateOnUpdate). */
const createOnUpdate = new Set([
  '/endpoints', '/events', 'events.k8s.io/events', 'coordination.k8s.io/leases',
  'rbac.authorization.k8s.io/roles', 'rbac.authorization.k8s.io/rolebindings',
  'rbac.authorization.k8s.io/clusterroles', 'rbac.authorization.k8s.io/clusterrolebindings',
  '/limitranges', 'discovery.k8s.io/endpointslices',
]);

/** Kinds whose DELETE answers with the deleted object (ReturnDeletedObject). */
const returnsDeleted = new Set(['/pods', '/services', '/namespaces']);

function genericStatusHandling(type: ResourceType): Pick<ResourceStrategy, 'prepareForCreate' | 'prepareForUpdate'> {
  const hasStatus = type.subresources.some((s) => s.name === 'status');
  if (!hasStatus) return {};
  return {
    prepareForCreate(obj) {
      // Status is the controllers' to write; a create starts from an empty one.
      obj['status'] = {};
    },
    prepareForUpdate(obj, old, ctx) {
      if (ctx.subresource === 'status') {
        // A status write changes status only (and metadata other than labels).
        for (const k of Object.keys(obj)) if (k !== 'status' && k !== 'metadata' && k !== 'apiVersion' && k !== 'kind') delete obj[k];
        for (const [k, v] of Object.entries(old)) if (k !== 'status' && k !== 'metadata') obj[k] = structuredClone(v);
        obj.metadata.labels = old.metadata.labels;
        if (!obj.metadata.labels) delete obj.metadata.labels;
      } else if (old['status'] !== undefined) {
        obj['status'] = structuredClone(old['status']);
      } else {
        delete obj['status'];
      }
    },
  };
}

function compose(...parts: Partial<ResourceStrategy>[]): ResourceStrategy {
  const out: ResourceStrategy = {};
  for (const p of parts) {
    for (const [k, v] of Object.entries(p)) {
      const key = k as keyof ResourceStrategy;
      const prev = out[key];
      if (typeof v === 'function' && typeof prev === 'function') {
        const a = prev as (...args: unknown[]) => unknown;
        const b = v as (...args: unknown[]) => unknown;
        (out as Record<string, unknown>)[key] = (...args: unknown[]) => {
          const ra = a(...args);
          const rb = b(...args);
          return Array.isArray(ra) ? [...ra, ...((rb as unknown[]) ?? [])] : rb;
        };
      } else {
        (out as Record<string, unknown>)[key] = v;
      }
    }
  }
  return out;
}

const namespaceStrategy: Partial<ResourceStrategy> = {
  prepareForCreate(obj) {
    const spec = isObject(obj['spec']) ? obj['spec'] : {};
    spec['finalizers'] = ['kubernetes'];
    obj['spec'] = spec;
    obj['status'] = { phase: 'Active' };
    obj.metadata.labels = { ...obj.metadata.labels, 'kubernetes.io/metadata.name': obj.metadata.name ?? '' };
  },
  prepareForUpdate(obj, old, ctx) {
    // spec.finalizers only change through the finalize sub-resource, which changes nothing else.
    if (ctx.subresource === 'finalize') {
      const finalizers = isObject(obj['spec']) ? obj['spec']['finalizers'] : undefined;
      for (const k of Object.keys(obj)) if (k !== 'apiVersion' && k !== 'kind' && k !== 'metadata') delete obj[k];
      for (const [k, v] of Object.entries(old)) if (k !== 'apiVersion' && k !== 'kind' && k !== 'metadata') obj[k] = structuredClone(v);
      obj['spec'] = { ...(isObject(old['spec']) ? old['spec'] : {}), finalizers: finalizers ?? [] };
      obj.metadata.labels = old.metadata.labels;
      return;
    }
    obj['spec'] = structuredClone(old['spec']);
    obj.metadata.labels = { ...obj.metadata.labels, 'kubernetes.io/metadata.name': obj.metadata.name ?? '' };
  },
  deletionFinalizers(obj) {
    const spec = isObject(obj['spec']) ? obj['spec'] : {};
    return Array.isArray(spec['finalizers']) ? (spec['finalizers'] as string[]) : [];
  },
  prepareForDelete(obj) {
    obj['status'] = { ...(isObject(obj['status']) ? obj['status'] : {}), phase: 'Terminating' };
  },
};

/** The image's tag decides the default pull policy: Always for :latest or no tag (SetDefaults_Container). */
function defaultPullPolicy(image: unknown): string {
  if (typeof image !== 'string') return 'IfNotPresent';
  const name = image.split('@')[0]!;
  const lastSlash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  const tag = colon > lastSlash ? name.slice(colon + 1) : '';
  return image.includes('@') ? 'IfNotPresent' : !tag || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultContainers(list: unknown): void {
  if (!Array.isArray(list)) return;
  for (const c of list) {
    if (!isObject(c)) continue;
    c['imagePullPolicy'] ??= defaultPullPolicy(c['image']);
    c['terminationMessagePath'] ??= '/dev/termination-log';
    c['terminationMessagePolicy'] ??= 'File';
    c['resources'] ??= {};
    if (Array.isArray(c['ports'])) for (const p of c['ports']) if (isObject(p)) p['protocol'] ??= 'TCP';
  }
}

/** The defaults kube-apiserver fills into every PodSpec, in pods and in workload templates (SetDefaults_PodSpec). */
export function defaultPodSpec(spec: unknown, restartPolicy = 'Always'): void {
  if (!isObject(spec)) return;
  spec['restartPolicy'] ??= restartPolicy;
  spec['terminationGracePeriodSeconds'] ??= 30;
  spec['dnsPolicy'] ??= 'ClusterFirst';
  spec['securityContext'] ??= {};
  spec['schedulerName'] ??= 'default-scheduler';
  spec['enableServiceLinks'] ??= true;
  defaultContainers(spec['containers']);
  defaultContainers(spec['initContainers']);
}

function defaultTemplate(obj: KubeObject, path: string[], restartPolicy?: string): void {
  let cur: unknown = obj;
  for (const k of path) cur = isObject(cur) ? cur[k] : undefined;
  defaultPodSpec(cur, restartPolicy);
}

const podStrategy: Partial<ResourceStrategy> = {
  prepareForCreate(obj) {
    defaultPodSpec(obj['spec']);
    if (isObject(obj['spec'])) {
      obj['spec']['priority'] ??= 0;
      obj['spec']['preemptionPolicy'] ??= 'PreemptLowerPriority';
      obj['spec']['tolerations'] ??= [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ];
    }
    obj['status'] = { phase: 'Pending', qosClass: qosClass(obj) };
  },
  validate(obj) {
    const errs: FieldError[] = [];
    const spec = obj['spec'];
    if (!isObject(spec)) return [required('spec')];
    const containers = spec['containers'];
    if (!Array.isArray(containers) || containers.length === 0) errs.push(required('spec.containers'));
    else containers.forEach((c, i) => {
      if (!isObject(c) || !c['name']) errs.push(required(`spec.containers[${i}].name`));
      if (!isObject(c) || !c['image']) errs.push(required(`spec.containers[${i}].image`));
    });
    return errs;
  },
};

function qosClass(pod: KubeObject): string {
  const spec = isObject(pod['spec']) ? pod['spec'] : {};
  const containers = Array.isArray(spec['containers']) ? spec['containers'] : [];
  let any = false;
  let guaranteed = containers.length > 0;
  for (const c of containers) {
    const res = isObject(c) && isObject(c['resources']) ? c['resources'] : {};
    const req = isObject(res['requests']) ? res['requests'] : {};
    const lim = isObject(res['limits']) ? res['limits'] : {};
    if (Object.keys(req).length || Object.keys(lim).length) any = true;
    for (const r of ['cpu', 'memory']) if (lim[r] === undefined || (req[r] !== undefined && req[r] !== lim[r])) guaranteed = false;
  }
  return !any ? 'BestEffort' : guaranteed ? 'Guaranteed' : 'Burstable';
}

/** Deployment defaults a client sees after create (SetDefaults_Deployment). */
/** Deployment defaults (SetDefaults_Deployment), applied on every write as the apiserver's decoding does. */
function defaultDeployment(obj: KubeObject): void {
  defaultTemplate(obj, ['spec', 'template', 'spec']);
  const spec = isObject(obj['spec']) ? obj['spec'] : (obj['spec'] = {});
  spec['replicas'] ??= 1;
  spec['revisionHistoryLimit'] ??= 10;
  spec['progressDeadlineSeconds'] ??= 600;
  const strategy = isObject(spec['strategy']) ? spec['strategy'] : (spec['strategy'] = {});
  strategy['type'] ??= 'RollingUpdate';
  if (strategy['type'] === 'RollingUpdate') {
    const ru = isObject(strategy['rollingUpdate']) ? strategy['rollingUpdate'] : (strategy['rollingUpdate'] = {});
    ru['maxUnavailable'] ??= '25%';
    ru['maxSurge'] ??= '25%';
  }
}

const deploymentStrategy: Partial<ResourceStrategy> = {
  prepareForCreate: defaultDeployment,
  prepareForUpdate: (obj) => defaultDeployment(obj),
  validate(obj) {
    const spec = isObject(obj['spec']) ? obj['spec'] : {};
    const errs: FieldError[] = [];
    if (!isObject(spec['selector'])) errs.push(required('spec.selector'));
    if (!isObject(spec['template'])) errs.push(required('spec.template'));
    return errs;
  },
};

/** A free-looking address from the default service CIDR 10.96.0.0/12. */
function allocateClusterIP(ctx: StrategyContext): string {
  const b = ctx.random.fill(new Uint8Array(3));
  const offset = ((b[0]! << 16) | (b[1]! << 8) | b[2]!) % ((1 << 20) - 2) + 1;
  const n = (10 << 24) | (96 << 16) | offset;
  return [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** Service defaults and cluster IP allocation (SetDefaults_Service, the ClusterIP allocator). */
const serviceStrategy: Partial<ResourceStrategy> = {
  prepareForCreate(obj, ctx) {
    const spec = isObject(obj['spec']) ? obj['spec'] : (obj['spec'] = {});
    spec['type'] ??= 'ClusterIP';
    spec['sessionAffinity'] ??= 'None';
    if (spec['type'] !== 'ExternalName') {
      if (spec['clusterIP'] === undefined || spec['clusterIP'] === '') spec['clusterIP'] = allocateClusterIP(ctx);
      spec['clusterIPs'] ??= [spec['clusterIP']];
      spec['ipFamilies'] ??= ['IPv4'];
      spec['ipFamilyPolicy'] ??= 'SingleStack';
      spec['internalTrafficPolicy'] ??= 'Cluster';
    }
    if (Array.isArray(spec['ports'])) {
      for (const p of spec['ports']) {
        if (!isObject(p)) continue;
        p['protocol'] ??= 'TCP';
        p['targetPort'] ??= p['port'];
      }
    }
    obj['status'] = { loadBalancer: {} };
  },
  prepareForUpdate(obj, old) {
    const spec = isObject(obj['spec']) ? obj['spec'] : (obj['spec'] = {});
    const oldSpec = isObject(old['spec']) ? old['spec'] : {};
    // The allocated address stays with the service.
    if (!spec['clusterIP'] && oldSpec['clusterIP']) spec['clusterIP'] = oldSpec['clusterIP'];
    if (!spec['clusterIPs'] && oldSpec['clusterIPs']) spec['clusterIPs'] = oldSpec['clusterIPs'];
  },
};

/** Workloads whose pod templates get PodSpec defaults on create and update. */
const templateDefaults = (path: string[], restartPolicy?: string): Partial<ResourceStrategy> => ({
  prepareForCreate: (obj) => defaultTemplate(obj, path, restartPolicy),
  prepareForUpdate: (obj) => defaultTemplate(obj, path, restartPolicy),
});

const specific: Record<string, Partial<ResourceStrategy>> = {
  'apps/replicasets': templateDefaults(['spec', 'template', 'spec']),
  'apps/statefulsets': templateDefaults(['spec', 'template', 'spec']),
  'apps/daemonsets': templateDefaults(['spec', 'template', 'spec']),
  '/replicationcontrollers': templateDefaults(['spec', 'template', 'spec']),
  'batch/jobs': templateDefaults(['spec', 'template', 'spec'], 'OnFailure'),
  'batch/cronjobs': templateDefaults(['spec', 'jobTemplate', 'spec', 'template', 'spec'], 'OnFailure'),
  '/services': serviceStrategy,
  '/namespaces': namespaceStrategy,
  '/pods': podStrategy,
  'apps/deployments': deploymentStrategy,
};

export function strategyFor(type: ResourceType): ResourceStrategy {
  const id = `${type.group}/${type.resource}`;
  const base: ResourceStrategy = {
    hasGeneration: withGeneration.has(id) || !!type.custom,
    allowCreateOnUpdate: createOnUpdate.has(id),
    returnDeletedObject: returnsDeleted.has(id),
    // core/v1 ReplicationControllers keep their pods by default (DefaultGarbageCollectionPolicy).
    defaultPropagationPolicy: id === '/replicationcontrollers' ? 'Orphan' : undefined,
  };
  return compose(base, genericStatusHandling(type), specific[id] ?? {});
}

export type { StrategyContext };
