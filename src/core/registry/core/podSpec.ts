/** PodSpec defaults, shared by pods and every workload's pod template (SetDefaults_PodSpec and kin). */
import { canonicalQuantity, isQuantityText } from '../../api/quantity';
import { isObject, type KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';
import { defaultClaimSpec } from './persistentVolumes';
import { defaultResourceList, defaultResourceRequirements } from './resourceList';
import { defaultAzureDisk, defaultHostPath, defaultISCSI, defaultRBD, defaultScaleIO } from './volumeSources';

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
    defaultResourceRequirements(c['resources']);
    if (Array.isArray(c['ports'])) for (const p of c['ports']) if (isObject(p)) p['protocol'] ??= 'TCP';
    for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) defaultProbe(c[probe]);
    if (isObject(c['lifecycle'])) for (const hook of ['postStart', 'preStop']) defaultHTTPGet(c['lifecycle'][hook]);
    if (Array.isArray(c['env'])) {
      for (const e of c['env']) if (isObject(e) && isObject(e['valueFrom'])) defaultFieldRef(e['valueFrom']['fieldRef']);
    }
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
  // GRPCAction's service is +default="" (the server's overall health).
  if (isObject(probe['grpc'])) probe['grpc']['service'] ??= '';
}

/** SetDefaults_ObjectFieldSelector: apiVersion v1. */
function defaultFieldRef(ref: unknown): void {
  if (isObject(ref)) ref['apiVersion'] ??= 'v1';
}

/** The volume sources of a VolumeSource: any key of a Volume but its name. */
const hasSource = (v: Record<string, unknown>): boolean => Object.entries(v).some(([k, x]) => k !== 'name' && x !== undefined && x !== null);

/**
 * SetDefaults_Volume and the defaults of each source (SetObjectDefaults_Pod's
 * walk of spec.volumes): a volume naming no source is an emptyDir; file modes
 * 0644; an image volume's pull policy as a container's; a projected service
 * account token lives an hour; an ephemeral volume's claim template gets a
 * claim spec's defaults.
 */
function defaultVolumes(list: unknown): void {
  if (!Array.isArray(list)) return;
  for (const v of list) {
    if (!isObject(v)) continue;
    if (!hasSource(v)) v['emptyDir'] = {};
    // A Quantity is stored as it encodes (`1024Mi` is `1Gi`).
    if (isObject(v['emptyDir']) && isQuantityText(v['emptyDir']['sizeLimit'])) v['emptyDir']['sizeLimit'] = canonicalQuantity(v['emptyDir']['sizeLimit']);
    for (const k of ['secret', 'configMap', 'downwardAPI', 'projected']) if (isObject(v[k])) v[k]['defaultMode'] ??= 420;
    if (isObject(v['image']) && !v['image']['pullPolicy']) v['image']['pullPolicy'] = defaultPullPolicy(v['image']['reference']);
    defaultHostPath(v['hostPath']);
    defaultISCSI(v['iscsi']);
    defaultRBD(v['rbd']);
    defaultAzureDisk(v['azureDisk']);
    defaultScaleIO(v['scaleIO']);
    if (isObject(v['downwardAPI'])) defaultDownwardAPIItems(v['downwardAPI']['items']);
    if (isObject(v['projected']) && Array.isArray(v['projected']['sources'])) {
      for (const source of v['projected']['sources']) {
        if (!isObject(source)) continue;
        if (isObject(source['downwardAPI'])) defaultDownwardAPIItems(source['downwardAPI']['items']);
        // SetDefaults_ServiceAccountTokenProjection
        if (isObject(source['serviceAccountToken'])) source['serviceAccountToken']['expirationSeconds'] ??= 3600;
      }
    }
    const claimTemplate = isObject(v['ephemeral']) ? v['ephemeral']['volumeClaimTemplate'] : undefined;
    if (isObject(claimTemplate)) {
      if (!isObject(claimTemplate['spec'])) claimTemplate['spec'] = {};
      defaultClaimSpec(claimTemplate['spec']);
    }
  }
}

function defaultDownwardAPIItems(items: unknown): void {
  if (Array.isArray(items)) for (const item of items) if (isObject(item)) defaultFieldRef(item['fieldRef']);
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
  defaultResourceList(spec['overhead']);
  defaultResourceRequirements(spec['resources']);
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
