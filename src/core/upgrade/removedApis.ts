/**
 * The removed-API check users run before an upgrade: for each object of a
 * manifest, whether its apiVersion was removed (and in which release), what
 * to use instead, the field changes the removal brings, and the object
 * converted to the replacement version where the conversion is mechanical.
 * The table is Kubernetes' deprecated API migration guide.
 */
import { parseAllDocuments } from 'yaml';
import { metricSpecFromV1 } from '../registry/autoscaling/hpaV1';
import { deprecationOf } from '../registry/lifecycle';

export interface Removal {
  /** "group/version" as apiVersion spells it. */
  apiVersion: string;
  kinds: string[];
  removedIn: string;
  /** The apiVersion to use instead; absent when nothing in Kubernetes replaces it. */
  replacement?: string;
  /** Since when the replacement is served. */
  replacementSince?: string;
  /** What changes beyond the apiVersion, as the migration guide lists it. */
  changes: string[];
  /** Converts an object; returns a reason instead when the change needs a person. */
  convert?: (obj: Obj) => Obj | { notMechanical: string };
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const clone = <T>(v: T): T => structuredClone(v);

/** Moves the object to a new apiVersion, field for field. */
const rename = (apiVersion: string) => (obj: Obj): Obj => ({ ...clone(obj), apiVersion });

function spec(obj: Obj): Obj {
  if (!isObj(obj['spec'])) obj['spec'] = {};
  return obj['spec'] as Obj;
}

/** v1beta1 Ingress backend {serviceName, servicePort} -> v1 {service: {name, port: {number|name}}}. */
function ingressBackend(b: unknown): unknown {
  if (!isObj(b) || !('serviceName' in b)) return b;
  const { serviceName, servicePort, ...rest } = b;
  const port = typeof servicePort === 'number' || /^\d+$/.test(String(servicePort)) ? { number: Number(servicePort) } : { name: servicePort };
  return { ...rest, service: { name: serviceName, port } };
}

function convertIngress(obj: Obj): Obj {
  const out = rename('networking.k8s.io/v1')(obj);
  const s = spec(out);
  if ('backend' in s) {
    s['defaultBackend'] = ingressBackend(s['backend']);
    delete s['backend'];
  }
  for (const rule of Array.isArray(s['rules']) ? s['rules'] : []) {
    const paths = isObj(rule) && isObj(rule['http']) && Array.isArray(rule['http']['paths']) ? rule['http']['paths'] : [];
    for (const p of paths) {
      if (!isObj(p)) continue;
      p['backend'] = ingressBackend(p['backend']);
      // v1beta1 defaulted an unset pathType to ImplementationSpecific; v1 requires it.
      p['pathType'] ??= 'ImplementationSpecific';
    }
  }
  return out;
}

/** Workloads to apps/v1: selector required (v1beta1 defaulted it from the template's labels), rollbackTo and templateGeneration gone. */
function convertWorkload(obj: Obj): Obj | { notMechanical: string } {
  const out = rename('apps/v1')(obj);
  const s = spec(out);
  delete s['rollbackTo'];
  delete s['templateGeneration'];
  if (!isObj(s['selector'])) {
    const labels = isObj(s['template']) && isObj(s['template']['metadata']) ? s['template']['metadata']['labels'] : undefined;
    if (!isObj(labels) || !Object.keys(labels).length) return { notMechanical: 'spec.selector is required in apps/v1 and the pod template has no labels to take it from' };
    s['selector'] = { matchLabels: clone(labels) };
  }
  return out;
}

/** Webhook configurations to v1, keeping v1beta1's behaviour by writing its defaults out. */
function convertWebhooks(kind: string) {
  return (obj: Obj): Obj | { notMechanical: string } => {
    const out = rename('admissionregistration.k8s.io/v1')(obj);
    for (const w of Array.isArray(out['webhooks']) ? out['webhooks'] : []) {
      if (!isObj(w)) continue;
      if (w['sideEffects'] !== 'None' && w['sideEffects'] !== 'NoneOnDryRun') {
        return { notMechanical: `webhook ${String(w['name'])}: sideEffects must be None or NoneOnDryRun in v1 (is ${w['sideEffects'] === undefined ? 'unset, Unknown in v1beta1' : String(w['sideEffects'])}); decide what the ${kind} webhook does` };
      }
      w['failurePolicy'] ??= 'Ignore';
      w['matchPolicy'] ??= 'Exact';
      w['timeoutSeconds'] ??= 30;
      w['admissionReviewVersions'] ??= ['v1beta1'];
    }
    return out;
  };
}

function convertEndpointSlice(obj: Obj): Obj {
  const out = rename('discovery.k8s.io/v1')(obj);
  for (const e of Array.isArray(out['endpoints']) ? out['endpoints'] : []) {
    if (!isObj(e) || !isObj(e['topology'])) continue;
    const topology = e['topology'] as Record<string, string>;
    if (topology['kubernetes.io/hostname'] !== undefined) e['nodeName'] ??= topology['kubernetes.io/hostname'];
    if (topology['topology.kubernetes.io/zone'] !== undefined) e['zone'] ??= topology['topology.kubernetes.io/zone'];
    const rest = Object.fromEntries(Object.entries(topology).filter(([k]) => k !== 'kubernetes.io/hostname' && k !== 'topology.kubernetes.io/zone'));
    delete e['topology'];
    if (Object.keys(rest).length) e['deprecatedTopology'] = rest;
  }
  return out;
}

function convertAccessReview(obj: Obj): Obj {
  const out = rename('authorization.k8s.io/v1')(obj);
  const s = spec(out);
  if ('group' in s) {
    s['groups'] = s['group'];
    delete s['group'];
  }
  return out;
}

/** autoscaling/v2beta1 metrics to v2: the layout the v1 metrics annotation keeps, converted the same way. */
function convertHpaV2beta1(obj: Obj): Obj {
  const out = rename('autoscaling/v2')(obj);
  const metrics = spec(out)['metrics'];
  if (Array.isArray(metrics)) spec(out)['metrics'] = metrics.map((m: unknown) => (isObj(m) ? metricSpecFromV1(m) : m));
  return out;
}

/** Printer columns: JSONPath renamed jsonPath. */
function printerColumns(cols: unknown): unknown {
  if (!Array.isArray(cols)) return cols;
  return cols.map((c: unknown) => {
    if (!isObj(c) || !('JSONPath' in c)) return c;
    const { JSONPath, ...rest } = c;
    return { ...rest, jsonPath: JSONPath };
  });
}

/**
 * CustomResourceDefinition v1beta1 to v1: top-level version, validation,
 * subresources and printer columns move into every version; v1beta1's
 * defaults (scope Namespaced, preserveUnknownFields true, conversion review
 * v1beta1) are written out, unknown fields kept with
 * x-kubernetes-preserve-unknown-fields where v1beta1 kept them.
 */
function convertCrd(obj: Obj): Obj | { notMechanical: string } {
  const out = rename('apiextensions.k8s.io/v1')(obj);
  const s = spec(out);
  s['scope'] ??= 'Namespaced';
  const preserve = s['preserveUnknownFields'] !== false;
  delete s['preserveUnknownFields'];
  const topSchema = isObj(s['validation']) ? s['validation']['openAPIV3Schema'] : undefined;
  const versions: Obj[] = Array.isArray(s['versions']) && s['versions'].length
    ? (s['versions'] as unknown[]).filter(isObj)
    : typeof s['version'] === 'string' ? [{ name: s['version'], served: true, storage: true }] : [];
  if (!versions.length) return { notMechanical: 'spec.version or spec.versions is required' };
  for (const v of versions) {
    const own = isObj(v['schema']) ? v['schema']['openAPIV3Schema'] : undefined;
    let schema = isObj(own) ? own : isObj(topSchema) ? clone(topSchema) : { type: 'object' };
    if (preserve) schema = { ...schema, 'x-kubernetes-preserve-unknown-fields': true };
    v['schema'] = { openAPIV3Schema: schema };
    if (v['subresources'] === undefined && s['subresources'] !== undefined) v['subresources'] = clone(s['subresources']);
    if (v['additionalPrinterColumns'] === undefined && s['additionalPrinterColumns'] !== undefined) v['additionalPrinterColumns'] = clone(s['additionalPrinterColumns']);
    if (v['additionalPrinterColumns'] !== undefined) v['additionalPrinterColumns'] = printerColumns(v['additionalPrinterColumns']);
  }
  s['versions'] = versions;
  for (const k of ['version', 'validation', 'subresources', 'additionalPrinterColumns']) delete s[k];
  const conversion = isObj(s['conversion']) ? s['conversion'] : undefined;
  if (conversion && conversion['strategy'] === 'Webhook') {
    conversion['webhook'] = { clientConfig: conversion['webhookClientConfig'], conversionReviewVersions: conversion['conversionReviewVersions'] ?? ['v1beta1'] };
  }
  if (conversion) {
    delete conversion['webhookClientConfig'];
    delete conversion['conversionReviewVersions'];
  }
  return out;
}

function convertFlowControlV1beta2(obj: Obj): Obj {
  const out = rename('flowcontrol.apiserver.k8s.io/v1')(obj);
  const limited = isObj(spec(out)['limited']) ? (spec(out)['limited'] as Obj) : undefined;
  if (limited && 'assuredConcurrencyShares' in limited) {
    limited['nominalConcurrencyShares'] = limited['assuredConcurrencyShares'];
    delete limited['assuredConcurrencyShares'];
  }
  return out;
}

const none: string[] = [];
const flowKinds = ['FlowSchema', 'PriorityLevelConfiguration'];
const workloadChanges = (kind: string): string[] => [
  'spec.selector is required and immutable',
  ...(kind === 'Deployment' ? ['spec.rollbackTo is removed', 'spec.progressDeadlineSeconds defaults to 600', 'spec.revisionHistoryLimit defaults to 10', 'spec.strategy.rollingUpdate.maxSurge and maxUnavailable default to 25%'] : []),
  ...(kind === 'DaemonSet' ? ['spec.templateGeneration is removed', 'spec.updateStrategy.type defaults to RollingUpdate (was OnDelete)'] : []),
  ...(kind === 'StatefulSet' ? ['spec.updateStrategy.type defaults to RollingUpdate'] : []),
];

function workloadRemovals(): Removal[] {
  const byVersion: [string, string[]][] = [
    ['extensions/v1beta1', ['DaemonSet', 'Deployment', 'ReplicaSet']],
    ['apps/v1beta1', ['Deployment', 'StatefulSet', 'ReplicaSet']],
    ['apps/v1beta2', ['DaemonSet', 'Deployment', 'StatefulSet', 'ReplicaSet']],
  ];
  return byVersion.flatMap(([apiVersion, kinds]) => kinds.map((kind) => ({
    apiVersion, kinds: [kind], removedIn: '1.16', replacement: 'apps/v1', replacementSince: '1.9', changes: workloadChanges(kind), convert: convertWorkload,
  })));
}

export const removals: Removal[] = [
  {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta3', kinds: flowKinds, removedIn: '1.32', replacement: 'flowcontrol.apiserver.k8s.io/v1', replacementSince: '1.29',
    changes: ['spec.limited.nominalConcurrencyShares defaults to 30 only when unset; an explicit 0 stays 0'], convert: rename('flowcontrol.apiserver.k8s.io/v1'),
  },
  {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta2', kinds: flowKinds, removedIn: '1.29', replacement: 'flowcontrol.apiserver.k8s.io/v1', replacementSince: '1.29',
    changes: ['spec.limited.assuredConcurrencyShares is renamed spec.limited.nominalConcurrencyShares', 'nominalConcurrencyShares defaults to 30 only when unset; an explicit 0 stays 0'], convert: convertFlowControlV1beta2,
  },
  { apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta1', kinds: flowKinds, removedIn: '1.26', replacement: 'flowcontrol.apiserver.k8s.io/v1', replacementSince: '1.29', changes: ['spec.limited.assuredConcurrencyShares is renamed spec.limited.nominalConcurrencyShares'], convert: convertFlowControlV1beta2 },
  { apiVersion: 'storage.k8s.io/v1beta1', kinds: ['CSIStorageCapacity'], removedIn: '1.27', replacement: 'storage.k8s.io/v1', replacementSince: '1.24', changes: none, convert: rename('storage.k8s.io/v1') },
  { apiVersion: 'autoscaling/v2beta2', kinds: ['HorizontalPodAutoscaler'], removedIn: '1.26', replacement: 'autoscaling/v2', replacementSince: '1.23', changes: none, convert: rename('autoscaling/v2') },
  {
    apiVersion: 'autoscaling/v2beta1', kinds: ['HorizontalPodAutoscaler'], removedIn: '1.25', replacement: 'autoscaling/v2', replacementSince: '1.23',
    changes: [
      'spec.metrics[*].*.targetAverageUtilization, targetAverageValue, targetValue and averageValue become target {type, averageUtilization | averageValue | value}',
      'metricName (and selector, metricSelector) become metric {name, selector}', 'object metrics: target becomes describedObject',
    ],
    convert: convertHpaV2beta1,
  },
  { apiVersion: 'batch/v1beta1', kinds: ['CronJob'], removedIn: '1.25', replacement: 'batch/v1', replacementSince: '1.21', changes: none, convert: rename('batch/v1') },
  {
    apiVersion: 'discovery.k8s.io/v1beta1', kinds: ['EndpointSlice'], removedIn: '1.25', replacement: 'discovery.k8s.io/v1', replacementSince: '1.21',
    changes: ['per-endpoint nodeName and zone replace the kubernetes.io/hostname and topology.kubernetes.io/zone topology keys', 'topology becomes the read-only deprecatedTopology'], convert: convertEndpointSlice,
  },
  {
    apiVersion: 'events.k8s.io/v1beta1', kinds: ['Event'], removedIn: '1.25', replacement: 'events.k8s.io/v1', replacementSince: '1.19',
    changes: [
      'type may only be Normal or Warning', 'involvedObject is renamed regarding', 'action, reason, reportingController and reportingInstance are required on create',
      'eventTime replaces firstTimestamp (renamed deprecatedFirstTimestamp)', 'series.lastObservedTime replaces lastTimestamp (renamed deprecatedLastTimestamp)',
      'series.count replaces count (renamed deprecatedCount)', 'reportingController replaces source.component (renamed deprecatedSource.component)',
      'reportingInstance replaces source.host (renamed deprecatedSource.host)', 'the deprecated-prefixed fields are not allowed on new objects',
    ],
    convert: rename('events.k8s.io/v1'),
  },
  {
    apiVersion: 'policy/v1beta1', kinds: ['PodDisruptionBudget'], removedIn: '1.25', replacement: 'policy/v1', replacementSince: '1.21',
    changes: ['an empty spec.selector ({}) selects every pod in the namespace in policy/v1 (none in policy/v1beta1); an unset selector selects none in both'],
    convert: (obj) => (isObj(spec(clone(obj))['selector']) && !Object.keys(spec(clone(obj))['selector'] as Obj).length
      ? { notMechanical: 'spec.selector is {}: it selected no pods in policy/v1beta1 and selects every pod in policy/v1' }
      : rename('policy/v1')(obj)),
  },
  { apiVersion: 'policy/v1beta1', kinds: ['PodSecurityPolicy'], removedIn: '1.25', changes: ['no replacement API: use Pod Security Admission or a third-party admission webhook'] },
  { apiVersion: 'node.k8s.io/v1beta1', kinds: ['RuntimeClass'], removedIn: '1.25', replacement: 'node.k8s.io/v1', replacementSince: '1.20', changes: none, convert: rename('node.k8s.io/v1') },
  ...(['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'] as const).map((kind): Removal => ({
    apiVersion: 'admissionregistration.k8s.io/v1beta1', kinds: [kind], removedIn: '1.22', replacement: 'admissionregistration.k8s.io/v1', replacementSince: '1.16',
    changes: [
      'webhooks[*].failurePolicy defaults to Fail (was Ignore)', 'webhooks[*].matchPolicy defaults to Equivalent (was Exact)', 'webhooks[*].timeoutSeconds defaults to 10s (was 30s)',
      'webhooks[*].sideEffects is required and may only be None or NoneOnDryRun', 'webhooks[*].admissionReviewVersions is required (v1, v1beta1)', 'webhooks[*].name must be unique',
    ],
    convert: convertWebhooks(kind),
  })),
  {
    apiVersion: 'apiextensions.k8s.io/v1beta1', kinds: ['CustomResourceDefinition'], removedIn: '1.22', replacement: 'apiextensions.k8s.io/v1', replacementSince: '1.16',
    changes: [
      'spec.scope is required', 'spec.version, spec.validation, spec.subresources and spec.additionalPrinterColumns move under spec.versions[*]',
      'spec.conversion.webhookClientConfig moves to spec.conversion.webhook.clientConfig', 'spec.conversion.conversionReviewVersions moves to spec.conversion.webhook.conversionReviewVersions',
      'spec.versions[*].schema.openAPIV3Schema is required and must be structural', 'spec.preserveUnknownFields: true is not allowed on create (use x-kubernetes-preserve-unknown-fields in the schema)',
      'additionalPrinterColumns[*].JSONPath is renamed jsonPath',
    ],
    convert: convertCrd,
  },
  { apiVersion: 'apiregistration.k8s.io/v1beta1', kinds: ['APIService'], removedIn: '1.22', replacement: 'apiregistration.k8s.io/v1', replacementSince: '1.10', changes: none, convert: rename('apiregistration.k8s.io/v1') },
  { apiVersion: 'authentication.k8s.io/v1beta1', kinds: ['TokenReview'], removedIn: '1.22', replacement: 'authentication.k8s.io/v1', replacementSince: '1.6', changes: none, convert: rename('authentication.k8s.io/v1') },
  {
    apiVersion: 'authorization.k8s.io/v1beta1', kinds: ['LocalSubjectAccessReview', 'SelfSubjectAccessReview', 'SubjectAccessReview', 'SelfSubjectRulesReview'], removedIn: '1.22',
    replacement: 'authorization.k8s.io/v1', replacementSince: '1.6', changes: ['spec.group is renamed spec.groups'], convert: convertAccessReview,
  },
  {
    apiVersion: 'certificates.k8s.io/v1beta1', kinds: ['CertificateSigningRequest'], removedIn: '1.22', replacement: 'certificates.k8s.io/v1', replacementSince: '1.19',
    changes: [
      'spec.signerName is required; kubernetes.io/legacy-unknown cannot be used to create requests', 'spec.usages is required, without duplicates and with known values',
      'status.conditions may not hold duplicate types and each condition needs a status', 'status.certificate must be PEM holding only CERTIFICATE blocks',
    ],
    convert: (obj) => {
      const s = spec(clone(obj));
      if (typeof s['signerName'] !== 'string' || s['signerName'] === 'kubernetes.io/legacy-unknown') return { notMechanical: 'spec.signerName is required and may not be kubernetes.io/legacy-unknown in certificates.k8s.io/v1' };
      if (!Array.isArray(s['usages']) || !s['usages'].length) return { notMechanical: 'spec.usages is required in certificates.k8s.io/v1' };
      return rename('certificates.k8s.io/v1')(obj);
    },
  },
  { apiVersion: 'coordination.k8s.io/v1beta1', kinds: ['Lease'], removedIn: '1.22', replacement: 'coordination.k8s.io/v1', replacementSince: '1.14', changes: none, convert: rename('coordination.k8s.io/v1') },
  ...['extensions/v1beta1', 'networking.k8s.io/v1beta1'].map((apiVersion): Removal => ({
    apiVersion, kinds: ['Ingress'], removedIn: '1.22', replacement: 'networking.k8s.io/v1', replacementSince: '1.19',
    changes: [
      'spec.backend is renamed spec.defaultBackend', 'backend serviceName is renamed service.name', 'a numeric backend servicePort becomes service.port.number',
      'a string backend servicePort becomes service.port.name', 'pathType is required (Prefix, Exact or ImplementationSpecific)',
    ],
    convert: convertIngress,
  })),
  { apiVersion: 'networking.k8s.io/v1beta1', kinds: ['IngressClass'], removedIn: '1.22', replacement: 'networking.k8s.io/v1', replacementSince: '1.19', changes: none, convert: rename('networking.k8s.io/v1') },
  { apiVersion: 'rbac.authorization.k8s.io/v1beta1', kinds: ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'], removedIn: '1.22', replacement: 'rbac.authorization.k8s.io/v1', replacementSince: '1.8', changes: none, convert: rename('rbac.authorization.k8s.io/v1') },
  { apiVersion: 'scheduling.k8s.io/v1beta1', kinds: ['PriorityClass'], removedIn: '1.22', replacement: 'scheduling.k8s.io/v1', replacementSince: '1.14', changes: none, convert: rename('scheduling.k8s.io/v1') },
  ...([['CSIDriver', '1.19'], ['CSINode', '1.17'], ['StorageClass', '1.6'], ['VolumeAttachment', '1.13']] as const).map(([kind, since]): Removal => ({
    apiVersion: 'storage.k8s.io/v1beta1', kinds: [kind], removedIn: '1.22', replacement: 'storage.k8s.io/v1', replacementSince: since, changes: none, convert: rename('storage.k8s.io/v1'),
  })),
  { apiVersion: 'extensions/v1beta1', kinds: ['NetworkPolicy'], removedIn: '1.16', replacement: 'networking.k8s.io/v1', replacementSince: '1.8', changes: none, convert: rename('networking.k8s.io/v1') },
  ...workloadRemovals(),
  { apiVersion: 'extensions/v1beta1', kinds: ['PodSecurityPolicy'], removedIn: '1.16', replacement: 'policy/v1beta1', replacementSince: '1.10', changes: ['policy/v1beta1 PodSecurityPolicy was removed too, in 1.25: use Pod Security Admission'] },
];

export interface ObjectReport {
  /** Position of the object in the input (0-based, across documents and List items). */
  index: number;
  apiVersion: string;
  kind: string;
  name?: string;
  namespace?: string;
  /** Whether the apiVersion is no longer served by the target release. */
  removed: boolean;
  /** The release that deprecated a version the target release still serves. */
  deprecatedIn?: string;
  removedIn?: string;
  replacement?: string;
  replacementSince?: string;
  changes?: string[];
  /** The object in the replacement version, when the conversion is mechanical. */
  converted?: Record<string, unknown>;
  /** Why no converted object is offered. */
  conversionNote?: string;
}

export interface CheckResult {
  targetVersion: string;
  objects: ObjectReport[];
  /** Documents that were not Kubernetes objects (parse errors, missing apiVersion or kind). */
  errors: string[];
}

function atOrBefore(release: string, target: string): boolean {
  const [a1, a2] = release.split('.').map(Number) as [number, number];
  const [b1, b2] = target.replace(/^v/, '').split('.').map(Number) as [number, number];
  return a1 < b1 || (a1 === b1 && a2 <= b2);
}

export function findRemoval(apiVersion: string, kind: string): Removal | undefined {
  return removals.find((r) => r.apiVersion === apiVersion && r.kinds.includes(kind));
}

/** Reports on one object. */
export function checkObject(obj: Obj, targetVersion: string, index = 0): ObjectReport {
  const apiVersion = String(obj['apiVersion']);
  const kind = String(obj['kind']);
  const meta = isObj(obj['metadata']) ? obj['metadata'] : {};
  const report: ObjectReport = { index, apiVersion, kind, removed: false };
  if (typeof meta['name'] === 'string') report.name = meta['name'];
  if (typeof meta['namespace'] === 'string') report.namespace = meta['namespace'];
  const removal = findRemoval(apiVersion, kind);
  if (!removal) {
    // Still served, perhaps deprecated: say so, and what replaces it, before it goes.
    const [group, version] = apiVersion.includes('/') ? (apiVersion.split('/', 2) as [string, string]) : ['', apiVersion];
    const d = deprecationOf(group, version, kind, targetVersion);
    if (d) {
      report.deprecatedIn = d.since;
      if (d.removedRelease) report.removedIn = d.removedRelease;
      if (d.replacement) report.replacement = d.replacement.group ? `${d.replacement.group}/${d.replacement.version}` : d.replacement.version;
    }
    return report;
  }
  report.removed = atOrBefore(removal.removedIn, targetVersion);
  report.removedIn = removal.removedIn;
  if (removal.replacement) report.replacement = removal.replacement;
  if (removal.replacementSince) report.replacementSince = removal.replacementSince;
  report.changes = removal.changes;
  if (!removal.convert) {
    report.conversionNote = removal.replacement ? 'the conversion is not mechanical: rewrite the object for the replacement version' : 'nothing replaces this API';
    return report;
  }
  const converted = removal.convert(clone(obj));
  if ('notMechanical' in converted) report.conversionNote = String(converted['notMechanical']);
  else report.converted = converted;
  return report;
}

/** The objects of YAML (multi-document) or JSON manifests, List kinds expanded, and the documents that were not objects. */
export function parseManifestObjects(text: string): { objects: Obj[]; errors: string[] } {
  const objects: Obj[] = [];
  const errors: string[] = [];
  parseAllDocuments(text).forEach((doc, i) => {
    if (doc.errors.length) {
      errors.push(`document ${i + 1}: ${doc.errors[0]!.message}`);
      return;
    }
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) return;
    if (!isObj(value) || typeof value['apiVersion'] !== 'string' || typeof value['kind'] !== 'string') {
      errors.push(`document ${i + 1}: not a Kubernetes object (apiVersion and kind are required)`);
      return;
    }
    if (value['kind'].endsWith('List') && Array.isArray(value['items'])) objects.push(...value['items'].filter(isObj));
    else objects.push(value);
  });
  return { objects, errors };
}

/** Reads manifests and reports on every object. */
export function checkManifests(text: string, targetVersion: string): CheckResult {
  const { objects, errors } = parseManifestObjects(text);
  const target = targetVersion.replace(/^v/, '');
  return { targetVersion: target, objects: objects.map((o, i) => checkObject(o, target, i)), errors };
}
