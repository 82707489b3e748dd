/**
 * Which fields a field selector can name, per resource, and their values on
 * an object. Two upstream pieces are mirrored separately on purpose:
 *  - the registry's field sets (GetAttrs / ToSelectableFields), used to match;
 *  - the scheme's field label conversion funcs, which decide what a request
 *    may name and reject the rest with a 400 whose message differs by kind.
 * They do not always agree upstream (apps/v1 ReplicaSets carry
 * status.replicas in their field set, yet the default conversion rejects it),
 * and kubesim keeps that behaviour.
 */
import { parseFieldSelector, type FieldSelector } from './fieldSelector';
import { SelectorError } from './selectorError';
import { goQuote } from '../errors/goFormat';

/** A custom resource's selectable fields (CRD `spec.versions[].selectableFields[].jsonPath`). */
export interface CustomResourceFields {
  namespaced: boolean;
  /** JSON paths such as `.spec.color` (the leading dot is optional). */
  selectableFields?: readonly string[];
}

export interface SelectableFieldOptions {
  /** API version of the request; only resource.k8s.io messages name it. Defaults to `v1`. */
  version?: string;
  /** Set for custom resources: their own conversion rules apply instead of the built-in table. */
  customResource?: CustomResourceFields;
}

type Obj = Readonly<Record<string, unknown>>;

function at(obj: unknown, ...path: string[]): unknown {
  let cur: unknown = obj;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    if (!Object.prototype.hasOwnProperty.call(cur, key)) return undefined;
    cur = (cur as Obj)[key];
  }
  return cur;
}

/** How upstream prints a selectable value: strings as-is, integers in decimal, booleans as true/false. */
function text(value: unknown, fallback = ''): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return fallback;
}

const bool = (value: unknown): string => (value === true ? 'true' : 'false');
const int = (value: unknown): string => text(value, '0');

function firstPodIP(obj: unknown): string {
  const ips = at(obj, 'status', 'podIPs');
  if (Array.isArray(ips) && ips.length > 0) return text(at(ips[0], 'ip'));
  return text(at(obj, 'status', 'podIP'));
}

/** Field set of an Event in the core/v1 names, from either core/v1 or events.k8s.io/v1 shape. */
function eventFields(obj: unknown, eventsGroup: boolean): Record<string, string> {
  const ref = eventsGroup ? 'regarding' : 'involvedObject';
  const reportingController = text(at(obj, 'reportingController'));
  const component = text(at(obj, eventsGroup ? 'deprecatedSource' : 'source', 'component'));
  return {
    'involvedObject.kind': text(at(obj, ref, 'kind')),
    'involvedObject.namespace': text(at(obj, ref, 'namespace')),
    'involvedObject.name': text(at(obj, ref, 'name')),
    'involvedObject.uid': text(at(obj, ref, 'uid')),
    'involvedObject.apiVersion': text(at(obj, ref, 'apiVersion')),
    'involvedObject.resourceVersion': text(at(obj, ref, 'resourceVersion')),
    'involvedObject.fieldPath': text(at(obj, ref, 'fieldPath')),
    reason: text(at(obj, 'reason')),
    reportingComponent: reportingController,
    source: component || reportingController,
    type: text(at(obj, 'type')),
  };
}

/** Kind-specific field sets, keyed `group/resource` (core group is the empty string). */
const kindFieldSets: Readonly<Record<string, (obj: unknown) => Record<string, string>>> = {
  '/pods': (o) => ({
    'spec.nodeName': text(at(o, 'spec', 'nodeName')),
    'spec.restartPolicy': text(at(o, 'spec', 'restartPolicy')),
    'spec.schedulerName': text(at(o, 'spec', 'schedulerName')),
    'spec.serviceAccountName': text(at(o, 'spec', 'serviceAccountName')),
    'spec.hostNetwork': bool(at(o, 'spec', 'hostNetwork')),
    'status.phase': text(at(o, 'status', 'phase')),
    // Only the primary IP: upstream accepts status.podIPs in selectors but never fills it.
    'status.podIP': firstPodIP(o),
    'status.nominatedNodeName': text(at(o, 'status', 'nominatedNodeName')),
  }),
  '/nodes': (o) => ({ 'spec.unschedulable': bool(at(o, 'spec', 'unschedulable')) }),
  '/namespaces': (o) => ({ 'status.phase': text(at(o, 'status', 'phase')) }),
  '/secrets': (o) => ({ type: text(at(o, 'type')) }),
  '/services': (o) => ({ 'spec.clusterIP': text(at(o, 'spec', 'clusterIP')), 'spec.type': text(at(o, 'spec', 'type')) }),
  '/replicationcontrollers': (o) => ({ 'status.replicas': int(at(o, 'status', 'replicas')) }),
  '/events': (o) => eventFields(o, false),
  'events.k8s.io/events': (o) => eventFields(o, true),
  'apps/replicasets': (o) => ({ 'status.replicas': int(at(o, 'status', 'replicas')) }),
  'batch/jobs': (o) => ({ 'status.successful': int(at(o, 'status', 'succeeded')) }),
  'certificates.k8s.io/certificatesigningrequests': (o) => ({ 'spec.signerName': text(at(o, 'spec', 'signerName')) }),
  'certificates.k8s.io/clustertrustbundles': (o) => ({ 'spec.signerName': text(at(o, 'spec', 'signerName')) }),
  'resource.k8s.io/resourceslices': (o) => ({
    'spec.nodeName': text(at(o, 'spec', 'nodeName')),
    'spec.driver': text(at(o, 'spec', 'driver')),
  }),
};

const jsonPathSegments = (jsonPath: string): string[] => jsonPath.replace(/^\./, '').split('.');
const fieldLabelOf = (jsonPath: string): string => jsonPath.replace(/^\./, '');

/**
 * The fields a field selector is matched against for one stored object:
 * `metadata.name` and `metadata.namespace` for every kind, plus the
 * kind-specific ones. Event objects of either group yield the core/v1 names,
 * which is what {@link validateFieldSelector} converts requests to.
 */
export function fieldsForObject(
  group: string,
  resource: string,
  obj: unknown,
  options: Pick<SelectableFieldOptions, 'customResource'> = {},
): Record<string, string> {
  const fields: Record<string, string> = {
    'metadata.name': text(at(obj, 'metadata', 'name')),
    'metadata.namespace': text(at(obj, 'metadata', 'namespace')),
  };
  if (options.customResource) {
    for (const path of options.customResource.selectableFields ?? []) {
      fields[fieldLabelOf(path)] = text(at(obj, ...jsonPathSegments(path)));
    }
    return fields;
  }
  const kind = kindFieldSets[`${group}/${resource}`];
  return kind ? { ...fields, ...kind(obj) } : fields;
}

// ---- field label conversion ----------------------------------------------------

interface LabelConversion {
  /** Accepted label -> label stored in the field set. */
  readonly accepted: Readonly<Record<string, string>>;
  readonly unsupported: (label: string, version: string) => string;
}

const same = (...labels: string[]): Record<string, string> => Object.fromEntries(labels.map((l) => [l, l]));
const notSupported = (label: string): string => `field label not supported: ${label}`;

const coreEventLabels = same(
  'involvedObject.kind',
  'involvedObject.namespace',
  'involvedObject.name',
  'involvedObject.uid',
  'involvedObject.apiVersion',
  'involvedObject.resourceVersion',
  'involvedObject.fieldPath',
  'reason',
  'reportingComponent',
  'source',
  'type',
  'metadata.namespace',
  'metadata.name',
);

/** Kinds that register a field label conversion func upstream; every other kind uses the default. */
const conversions: Readonly<Record<string, LabelConversion>> = {
  '/pods': {
    accepted: {
      ...same(
        'metadata.name',
        'metadata.namespace',
        'spec.nodeName',
        'spec.restartPolicy',
        'spec.schedulerName',
        'spec.serviceAccountName',
        'spec.hostNetwork',
        'status.phase',
        'status.podIP',
        'status.podIPs',
        'status.nominatedNodeName',
      ),
      // Old v1 clients still send spec.host.
      'spec.host': 'spec.nodeName',
    },
    unsupported: notSupported,
  },
  // Cluster-scoped kinds with their own func do not accept metadata.namespace.
  '/nodes': { accepted: same('metadata.name', 'spec.unschedulable'), unsupported: notSupported },
  '/namespaces': { accepted: same('status.phase', 'metadata.name'), unsupported: notSupported },
  '/replicationcontrollers': { accepted: same('metadata.name', 'metadata.namespace', 'status.replicas'), unsupported: notSupported },
  '/events': { accepted: coreEventLabels, unsupported: notSupported },
  '/secrets': { accepted: same('type', 'metadata.namespace', 'metadata.name'), unsupported: notSupported },
  '/services': { accepted: same('metadata.namespace', 'metadata.name', 'spec.clusterIP', 'spec.type'), unsupported: notSupported },
  'events.k8s.io/events': {
    accepted: {
      reason: 'reason',
      'regarding.kind': 'involvedObject.kind',
      'regarding.namespace': 'involvedObject.namespace',
      'regarding.name': 'involvedObject.name',
      'regarding.uid': 'involvedObject.uid',
      'regarding.apiVersion': 'involvedObject.apiVersion',
      'regarding.resourceVersion': 'involvedObject.resourceVersion',
      'regarding.fieldPath': 'involvedObject.fieldPath',
      reportingController: 'reportingComponent',
      source: 'source',
      type: 'type',
      'metadata.namespace': 'metadata.namespace',
      'metadata.name': 'metadata.name',
    },
    unsupported: notSupported,
  },
  'batch/jobs': {
    accepted: same('metadata.name', 'metadata.namespace', 'status.successful'),
    unsupported: (label) => `field label ${goQuote(label)} not supported for batchv1.Job`,
  },
  'certificates.k8s.io/certificatesigningrequests': { accepted: same('metadata.name', 'spec.signerName'), unsupported: notSupported },
  'certificates.k8s.io/clustertrustbundles': { accepted: same('metadata.name', 'spec.signerName'), unsupported: notSupported },
  'resource.k8s.io/resourceslices': {
    accepted: same('metadata.name', 'spec.nodeName', 'spec.driver'),
    unsupported: (label, version) => `field label not supported for resource.k8s.io/${version}, Kind=ResourceSlice: ${label}`,
  },
};

/** runtime.DefaultMetaV1FieldSelectorConversion, for kinds without their own func. */
const defaultConversion: LabelConversion = {
  accepted: same('metadata.name', 'metadata.namespace'),
  unsupported: (label) => `${goQuote(label)} is not a known field selector: only "metadata.name", "metadata.namespace"`,
};

function customResourceConversion(cr: CustomResourceFields): LabelConversion {
  const labels = ['metadata.name', ...(cr.namespaced ? ['metadata.namespace'] : []), ...(cr.selectableFields ?? []).map(fieldLabelOf)];
  return { accepted: same(...labels), unsupported: notSupported };
}

function conversionFor(group: string, resource: string, options: SelectableFieldOptions): LabelConversion {
  if (options.customResource) return customResourceConversion(options.customResource);
  return conversions[`${group}/${resource}`] ?? defaultConversion;
}

/** The field labels a request may name for this resource (for discovery-like help and the UI). */
export function supportedFieldLabels(group: string, resource: string, options: SelectableFieldOptions = {}): string[] {
  return Object.keys(conversionFor(group, resource, options).accepted).sort();
}

/**
 * What kube-apiserver does with a list/watch `fieldSelector` before using it:
 * parse it, then convert every field label for the resource's kind. Returns the
 * converted selector (e.g. pods' `spec.host` becomes `spec.nodeName`, and
 * events.k8s.io's `regarding.name` becomes `involvedObject.name`), or a
 * SelectorError whose message is the 400 BadRequest message, such as
 * `field label not supported: foo`.
 */
export function validateFieldSelector(
  group: string,
  resource: string,
  selector: FieldSelector | string,
  options: SelectableFieldOptions = {},
): FieldSelector | SelectorError {
  const parsed = typeof selector === 'string' ? parseFieldSelector(selector) : selector;
  if (parsed instanceof SelectorError) return parsed;
  const conversion = conversionFor(group, resource, options);
  const version = options.version ?? 'v1';
  return parsed.transform((field, value) => {
    const target = Object.prototype.hasOwnProperty.call(conversion.accepted, field) ? conversion.accepted[field] : undefined;
    return target === undefined ? new SelectorError(conversion.unsupported(field, version)) : { field: target, value };
  });
}

