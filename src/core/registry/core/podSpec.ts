/** PodSpec defaults, shared by pods and every workload's pod template (SetDefaults_PodSpec and kin). */
import { canonicalQuantity } from '../../api/quantity';
import { isObject, type KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';

/** The image's tag decides the default pull policy: Always for :latest or no tag (SetDefaults_Container). */
function defaultPullPolicy(image: unknown): string {
  if (typeof image !== 'string' || image.includes('@')) return 'IfNotPresent';
  const lastSlash = image.lastIndexOf('/');
  const colon = image.lastIndexOf(':');
  const tag = colon > lastSlash ? image.slice(colon + 1) : '';
  return !tag || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultContainers(list: unknown): void {
  if (!Array.isArray(list)) return;
  for (const c of list) {
    if (!isObject(c)) continue;
    c['imagePullPolicy'] ??= defaultPullPolicy(c['image']);
    c['terminationMessagePath'] ??= '/dev/termination-log';
    c['terminationMessagePolicy'] ??= 'File';
    c['resources'] ??= {};
    canonicalResources(c['resources']);
    if (Array.isArray(c['ports'])) for (const p of c['ports']) if (isObject(p)) p['protocol'] ??= 'TCP';
    for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) defaultProbe(c[probe]);
    if (isObject(c['lifecycle'])) for (const hook of ['postStart', 'preStop']) defaultHTTPGet(c['lifecycle'][hook]);
    if (Array.isArray(c['env'])) {
      for (const e of c['env']) if (isObject(e) && isObject(e['valueFrom'])) defaultFieldRef(e['valueFrom']['fieldRef']);
    }
  }
}

/** Quantities are stored as resource.Quantity encodes them: `0.5` becomes `500m`, `1.5Gi` `1536Mi`. */
function canonicalResources(resources: unknown): void {
  if (!isObject(resources)) return;
  for (const list of ['requests', 'limits']) {
    const l = resources[list];
    if (!isObject(l)) continue;
    for (const [k, v] of Object.entries(l)) if (typeof v === 'string' || typeof v === 'number') l[k] = canonicalQuantity(v);
  }
}

/**
 * SetDefaults_Pod (Pods only, not templates): a container's requests default
 * to its limits, with hostNetwork a port's hostPort to its containerPort, and
 * enableServiceLinks to true (so a template's revision hash is kube's).
 */
export function defaultPodOnly(spec: unknown): void {
  if (!isObject(spec)) return;
  spec['enableServiceLinks'] ??= true;
  for (const list of ['containers', 'initContainers']) {
    const cs = spec[list];
    if (!Array.isArray(cs)) continue;
    for (const c of cs) {
      if (!isObject(c) || !isObject(c['resources']) || !isObject(c['resources']['limits'])) continue;
      const res = c['resources'];
      const requests = isObject(res['requests']) ? res['requests'] : (res['requests'] = {});
      for (const [k, v] of Object.entries(res['limits'] as Record<string, unknown>)) if (!(k in requests)) requests[k] = v;
    }
  }
  if (spec['hostNetwork'] === true) {
    for (const list of ['containers', 'initContainers']) {
      const cs = spec[list];
      if (!Array.isArray(cs)) continue;
      for (const c of cs) {
        if (!isObject(c) || !Array.isArray(c['ports'])) continue;
        for (const p of c['ports']) if (isObject(p) && (p['hostPort'] === undefined || p['hostPort'] === 0)) p['hostPort'] = p['containerPort'];
      }
    }
  }
}

/** SetDefaults_HTTPGetAction: path "/" and scheme HTTP. */
function defaultHTTPGet(handler: unknown): void {
  if (!isObject(handler) || !isObject(handler['httpGet'])) return;
  handler['httpGet']['path'] ??= '/';
  handler['httpGet']['scheme'] ??= 'HTTP';
}

/** SetDefaults_Probe */
function defaultProbe(probe: unknown): void {
  if (!isObject(probe)) return;
  probe['timeoutSeconds'] ??= 1;
  probe['periodSeconds'] ??= 10;
  probe['successThreshold'] ??= 1;
  probe['failureThreshold'] ??= 3;
  defaultHTTPGet(probe);
}

/** SetDefaults_ObjectFieldSelector: apiVersion v1. */
function defaultFieldRef(ref: unknown): void {
  if (isObject(ref)) ref['apiVersion'] ??= 'v1';
}

/** Volume source defaults: file modes 0644 for projected files, hostPath type "". */
function defaultVolumes(list: unknown): void {
  if (!Array.isArray(list)) return;
  for (const v of list) {
    if (!isObject(v)) continue;
    for (const k of ['secret', 'configMap', 'downwardAPI', 'projected']) if (isObject(v[k])) v[k]['defaultMode'] ??= 420;
    if (isObject(v['hostPath'])) v['hostPath']['type'] ??= '';
    if (isObject(v['downwardAPI']) && Array.isArray(v['downwardAPI']['items'])) {
      for (const item of v['downwardAPI']['items']) if (isObject(item)) defaultFieldRef(item['fieldRef']);
    }
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
  defaultContainers(spec['containers']);
  defaultContainers(spec['initContainers']);
  defaultContainers(spec['ephemeralContainers']);
  defaultVolumes(spec['volumes']);
}

/**
 * Defaults the PodSpec at path. Go's embedded structs always exist, so a
 * missing template is defaulted as an empty one (then validated as one);
 * `create: false` is for pointer templates (a ReplicationController's).
 */
export function defaultTemplate(obj: KubeObject, path: string[], restartPolicy?: string, create = true): void {
  let cur: unknown = obj;
  for (const k of path) {
    if (!isObject(cur)) return;
    if (create && cur[k] === undefined) cur[k] = {};
    cur = cur[k];
  }
  defaultPodSpec(cur, restartPolicy);
  // A template's PodSpec goes through the same v1 conversion as a pod's.
  readDeprecatedServiceAccount(cur);
  writeDeprecatedServiceAccount(cur);
}

/** v1 conversion: a PodSpec naming only the deprecated serviceAccount means serviceAccountName. */
export function readDeprecatedServiceAccount(spec: unknown): void {
  if (isObject(spec) && !spec['serviceAccountName'] && typeof spec['serviceAccount'] === 'string' && spec['serviceAccount']) spec['serviceAccountName'] = spec['serviceAccount'];
}

/** v1 conversion writes serviceAccount as a copy of serviceAccountName. */
export function writeDeprecatedServiceAccount(spec: unknown): void {
  if (!isObject(spec)) return;
  if (spec['serviceAccountName']) spec['serviceAccount'] = spec['serviceAccountName'];
  else delete spec['serviceAccount'];
}

/** The defaulter of a kind whose only defaults are its pod template's (PodTemplate). */
export const templateDefaults = (path: string[], restartPolicy?: string): Partial<ResourceStrategy> => ({
  defaulter: (obj) => defaultTemplate(obj, path, restartPolicy),
});
