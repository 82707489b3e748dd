/**
 * Generates the bundled protobuf descriptor (src/core/http/serializers/protobuf/generated/)
 * from the upstream Kubernetes 1.36 generated.proto files in ../shared/data/proto.
 *
 * Run: npx tsx scripts/generate-proto.ts
 *
 * Output:
 * - descriptor.json: a protobufjs JSON descriptor (comments and file options stripped,
 *   message references fully qualified), loadable with protobufjs/light's `Root.fromJSON`
 *   and simple enough to walk directly. Custom options carry what the .proto files do
 *   not say but the JSON form needs:
 *     field option `keepZero`: a scalar whose zero value still appears in JSON (a Go
 *       pointer or a field without `omitempty`); other zero scalars are dropped, as Go's
 *       encoding/json drops them.
 *     field option `json`: the JSON name, where the proto name is the Go field name.
 *     field option `inline`: an embedded Go struct, whose fields sit in the parent's JSON.
 *     message option `listWrapper`: a message generated for a named Go slice
 *       (`+protobuf.nullable=true`, one `repeated items = 1`), whose JSON form is the array.
 * - kinds.json: "apiVersion/kind" -> message full name, for every kind that has a
 *   message, from the Swagger's `x-kubernetes-group-version-kind` plus the kinds
 *   the Swagger does not list (discovery, admission reviews, meta.k8s.io).
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..');
const protoRoot = join(repo, '../shared/data/proto');
const swaggerPath = join(repo, '../shared/data/openapi/swagger-1.36.json');
const outDir = join(repo, 'src/core/http/serializers/protobuf/generated');

// ---------------------------------------------------------------------------
// Facts about the Go types that the .proto files and the Swagger do not carry.

/**
 * Optional scalars that are plain (non-pointer) Go fields tagged `omitempty`, keyed
 * "Message.field" (the same message name in every version of a group). Go writes them
 * to protobuf even when zero, and its JSON encoder drops them when zero, so the
 * decoder drops their zero values too. Every other optional int/bool is assumed to be
 * a pointer, whose zero (`replicas: 0`, `automountServiceAccountToken: false`) means
 * something and is kept.
 */
const NON_POINTER_SCALARS = new Set<string>([
  // meta/v1
  'ObjectMeta.generation', 'ListOptions.watch', 'ListOptions.allowWatchBookmarks', 'ListOptions.limit',
  'Status.code', 'StatusDetails.retryAfterSeconds', 'Condition.observedGeneration',
  // core/v1
  'AWSElasticBlockStoreVolumeSource.partition', 'AWSElasticBlockStoreVolumeSource.readOnly',
  'AzureFileVolumeSource.readOnly', 'AzureFilePersistentVolumeSource.readOnly',
  'CSIPersistentVolumeSource.readOnly', 'CephFSVolumeSource.readOnly', 'CephFSPersistentVolumeSource.readOnly',
  'CinderVolumeSource.readOnly', 'CinderPersistentVolumeSource.readOnly',
  'Container.stdin', 'Container.stdinOnce', 'Container.tty',
  'EphemeralContainerCommon.stdin', 'EphemeralContainerCommon.stdinOnce', 'EphemeralContainerCommon.tty',
  'ContainerImage.sizeBytes', 'ContainerPort.hostPort', 'ContainerStateTerminated.signal',
  'Event.count', 'EventSeries.count', 'Event.deprecatedCount',
  'FCVolumeSource.readOnly', 'FlexVolumeSource.readOnly', 'FlexPersistentVolumeSource.readOnly',
  'GCEPersistentDiskVolumeSource.partition', 'GCEPersistentDiskVolumeSource.readOnly',
  'GlusterfsVolumeSource.readOnly', 'GlusterfsPersistentVolumeSource.readOnly',
  'ISCSIVolumeSource.readOnly', 'ISCSIVolumeSource.chapAuthDiscovery', 'ISCSIVolumeSource.chapAuthSession',
  'ISCSIPersistentVolumeSource.readOnly', 'ISCSIPersistentVolumeSource.chapAuthDiscovery',
  'ISCSIPersistentVolumeSource.chapAuthSession',
  'NFSVolumeSource.readOnly', 'NodeSpec.unschedulable', 'PersistentVolumeClaimVolumeSource.readOnly',
  'PodAttachOptions.stdin', 'PodAttachOptions.stdout', 'PodAttachOptions.stderr', 'PodAttachOptions.tty',
  'PodExecOptions.stdin', 'PodExecOptions.stdout', 'PodExecOptions.stderr', 'PodExecOptions.tty',
  'PodLogOptions.follow', 'PodLogOptions.previous', 'PodLogOptions.timestamps',
  'PodLogOptions.insecureSkipTLSVerifyBackend',
  'PodCondition.observedGeneration', 'PodStatus.observedGeneration',
  'PodSpec.hostNetwork', 'PodSpec.hostPID', 'PodSpec.hostIPC',
  'PortworxVolumeSource.readOnly', 'QuobyteVolumeSource.readOnly',
  'Probe.initialDelaySeconds', 'Probe.timeoutSeconds', 'Probe.periodSeconds', 'Probe.successThreshold',
  'Probe.failureThreshold',
  'RBDVolumeSource.readOnly', 'RBDPersistentVolumeSource.readOnly',
  'ReplicationControllerSpec.minReadySeconds', 'ReplicationControllerStatus.fullyLabeledReplicas',
  'ReplicationControllerStatus.readyReplicas', 'ReplicationControllerStatus.availableReplicas',
  'ReplicationControllerStatus.observedGeneration',
  'ScaleIOVolumeSource.sslEnabled', 'ScaleIOVolumeSource.readOnly',
  'ScaleIOPersistentVolumeSource.sslEnabled', 'ScaleIOPersistentVolumeSource.readOnly',
  'ServicePort.nodePort', 'ServiceSpec.healthCheckNodePort', 'ServiceSpec.publishNotReadyAddresses',
  'StorageOSVolumeSource.readOnly', 'StorageOSPersistentVolumeSource.readOnly',
  'VolumeMount.readOnly', 'VolumeMountStatus.readOnly',
  // apps, extensions
  'DaemonSetSpec.minReadySeconds', 'DaemonSetSpec.templateGeneration',
  'DaemonSetStatus.observedGeneration', 'DaemonSetStatus.updatedNumberScheduled',
  'DaemonSetStatus.numberAvailable', 'DaemonSetStatus.numberUnavailable',
  'DaemonSetStatus.currentNumberScheduled', 'DaemonSetStatus.numberMisscheduled',
  'DaemonSetStatus.desiredNumberScheduled', 'DaemonSetStatus.numberReady',
  'DeploymentSpec.minReadySeconds', 'DeploymentSpec.paused',
  'DeploymentStatus.observedGeneration', 'DeploymentStatus.replicas', 'DeploymentStatus.updatedReplicas',
  'DeploymentStatus.readyReplicas', 'DeploymentStatus.availableReplicas', 'DeploymentStatus.unavailableReplicas',
  'ReplicaSetSpec.minReadySeconds', 'ReplicaSetStatus.replicas', 'ReplicaSetStatus.fullyLabeledReplicas',
  'ReplicaSetStatus.readyReplicas', 'ReplicaSetStatus.availableReplicas', 'ReplicaSetStatus.observedGeneration',
  'StatefulSetOrdinals.start', 'StatefulSetSpec.minReadySeconds',
  'StatefulSetStatus.observedGeneration', 'StatefulSetStatus.replicas', 'StatefulSetStatus.readyReplicas',
  'StatefulSetStatus.currentReplicas', 'StatefulSetStatus.updatedReplicas', 'StatefulSetStatus.availableReplicas',
  'RollbackConfig.revision', 'ScaleSpec.replicas', 'ScaleStatus.replicas',
  // authentication, authorization, admissionregistration, apiserverinternal
  'TokenReviewStatus.authenticated', 'SubjectAccessReviewStatus.denied',
  'ValidatingAdmissionPolicyStatus.observedGeneration', 'StorageVersionCondition.observedGeneration',
  // autoscaling, batch, policy
  'HorizontalPodAutoscalerStatus.currentReplicas',
  'JobStatus.active', 'JobStatus.succeeded', 'JobStatus.failed',
  'PodDisruptionBudgetStatus.observedGeneration',
  // flowcontrol, networking, resource, scheduling
  'FlowSchemaSpec.matchingPrecedence', 'QueuingConfiguration.queues', 'QueuingConfiguration.handSize',
  'QueuingConfiguration.queueLengthLimit', 'ResourcePolicyRule.clusterScope',
  'LimitedPriorityLevelConfiguration.assuredConcurrencyShares',
  'ServiceBackendPort.number',
  'DeviceSubRequest.count', 'ExactDeviceRequest.count', 'DeviceRequest.count',
  'PriorityClass.globalDefault',
]);

/** Optional strings that are Go pointers and where "" means something of its own. */
const POINTER_STRINGS = new Set<string>([
  'PersistentVolumeClaimSpec.storageClassName',
  'PersistentVolumeClaimSpec.volumeAttributesClassName',
  'PodSpec.runtimeClassName',
  'IngressSpec.ingressClassName',
]);

/** Kinds with a message that the Swagger does not list (served outside the OpenAPI paths). */
const EXTRA_KINDS: Array<[apiVersion: string, kind: string, message: string]> = [
  ['apidiscovery.k8s.io/v2', 'APIGroupDiscoveryList', 'k8s.io.api.apidiscovery.v2.APIGroupDiscoveryList'],
  ['apidiscovery.k8s.io/v2', 'APIGroupDiscovery', 'k8s.io.api.apidiscovery.v2.APIGroupDiscovery'],
  ['apidiscovery.k8s.io/v2beta1', 'APIGroupDiscoveryList', 'k8s.io.api.apidiscovery.v2beta1.APIGroupDiscoveryList'],
  ['apidiscovery.k8s.io/v2beta1', 'APIGroupDiscovery', 'k8s.io.api.apidiscovery.v2beta1.APIGroupDiscovery'],
  ['admission.k8s.io/v1', 'AdmissionReview', 'k8s.io.api.admission.v1.AdmissionReview'],
  ['admission.k8s.io/v1beta1', 'AdmissionReview', 'k8s.io.api.admission.v1beta1.AdmissionReview'],
  ['imagepolicy.k8s.io/v1alpha1', 'ImageReview', 'k8s.io.api.imagepolicy.v1alpha1.ImageReview'],
  ['meta.k8s.io/v1', 'PartialObjectMetadata', 'k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadata'],
  ['meta.k8s.io/v1', 'PartialObjectMetadataList', 'k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadataList'],
  ['meta.k8s.io/v1beta1', 'PartialObjectMetadataList', 'k8s.io.apimachinery.pkg.apis.meta.v1beta1.PartialObjectMetadataList'],
  ['v1', 'List', 'k8s.io.apimachinery.pkg.apis.meta.v1.List'],
];

/** Fields whose JSON form is handled by a well-known type of the codec, not by name. */
const SPECIAL_FIELDS = new Set<string>(['FieldsV1.Raw']);

/** Messages with a JSON form of their own (see the codec's wellKnown.ts). */
const SPECIAL_MESSAGES = new Set<string>(['Time', 'MicroTime', 'Duration', 'FieldsV1', 'IntOrString', 'Quantity',
  'RawExtension']);

// ---------------------------------------------------------------------------

interface SwaggerDefinition {
  required?: string[];
  properties?: Record<string, unknown>;
  'x-kubernetes-group-version-kind'?: Array<{ group: string; version: string; kind: string }>;
}

function listProtoFiles(dir: string, prefix = ''): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) files.push(...listProtoFiles(join(dir, entry.name), rel));
    else if (entry.name.endsWith('.proto')) files.push(rel);
  }
  return files;
}

function loadRoot(): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => join(protoRoot, target);
  // keepCase: the JSON names are the proto names, camelCase already.
  root.loadSync(listProtoFiles(protoRoot), { keepCase: true, alternateCommentMode: true });
  root.resolveAll();
  return root;
}

function allTypes(ns: protobuf.NamespaceBase, out: protobuf.Type[] = []): protobuf.Type[] {
  for (const nested of ns.nestedArray) {
    if (nested instanceof protobuf.Type) out.push(nested);
    if (nested instanceof protobuf.Namespace || nested instanceof protobuf.Type) allTypes(nested, out);
  }
  return out;
}

/**
 * Whether a message can be a Go struct embedded in a parent with these (lower-cased)
 * JSON properties: each of its fields is one of them, or is itself such an embedded struct.
 */
function embeddedFits(type: protobuf.Type, properties: Set<string>, depth = 0): boolean {
  return type.fieldsArray.every((f) => properties.has(f.name.toLowerCase()) ||
    (depth < 3 && f.resolvedType instanceof protobuf.Type && !f.repeated && !f.map &&
      embeddedFits(f.resolvedType, properties, depth + 1)));
}

/** Whether a field named `name` (any case) is in the message or in one it embeds. */
function deepHas(type: protobuf.Type, name: string, depth = 0): boolean {
  return type.fieldsArray.some((f) => f.name.toLowerCase() === name.toLowerCase() ||
    (depth < 3 && f.resolvedType instanceof protobuf.Type && !f.repeated && !f.map && deepHas(f.resolvedType, name, depth + 1)));
}

/** "k8s.io.api.apps.v1.Deployment" -> "io.k8s.api.apps.v1.Deployment". */
const swaggerName = (fullName: string) => fullName.replace(/^\.?k8s\.io\./, 'io.k8s.');
/** The package without its version: "k8s.io.api.apps" for "k8s.io.api.apps.v1beta2.Deployment". */
const groupPackage = (fullName: string) => fullName.replace(/^\./, '').split('.').slice(0, -2).join('.');

function main(): void {
  const root = loadRoot();
  const definitions = (JSON.parse(readFileSync(swaggerPath, 'utf8')) as { definitions: Record<string, SwaggerDefinition> })
    .definitions;

  // Versions of one group repeat their messages: a message the Swagger lacks (an old beta)
  // borrows the required list of the same message in a served version.
  const byGroupAndName = new Map<string, SwaggerDefinition>();
  for (const [name, def] of Object.entries(definitions)) {
    const parts = name.split('.');
    byGroupAndName.set(`${parts.slice(0, -2).join('.')}.${parts.at(-1)}`, def);
  }
  const definitionFor = (type: protobuf.Type): SwaggerDefinition | undefined =>
    definitions[swaggerName(type.fullName.slice(1))] ??
    byGroupAndName.get(`${swaggerName(groupPackage(type.fullName))}.${type.name}`);

  // Message references are written fully qualified, so the runtime finds them without
  // protobuf's scope search (and without building protobufjs reflection objects).
  const absoluteTypes = new Map<string, string>();
  const fieldOptions = new Map<string, Record<string, unknown>>();
  const setOption = (field: protobuf.Field, name: string, value: unknown) => {
    const key = `${field.parent?.fullName}.${field.name}`;
    fieldOptions.set(key, { ...fieldOptions.get(key), [name]: value });
  };
  const listWrappers = new Set<string>();
  const unexplained: string[] = [];
  const uncovered: string[] = [];
  const usedFacts = new Set<string>();
  const types = allTypes(root);
  for (const type of types) {
    const def = definitionFor(type);
    const required = new Set(def?.required ?? []);
    const comment = type.comment ?? '';
    if (comment.includes('+protobuf.nullable=true') && type.fieldsArray.length === 1 &&
      type.fieldsArray[0].name === 'items' && type.fieldsArray[0].repeated) {
      listWrappers.add(type.fullName.slice(1));
    }
    const properties = def?.properties ? Object.keys(def.properties) : undefined;
    const covered = new Set<string>(['apiVersion', 'kind']);
    for (const field of type.fieldsArray) {
      if (field.resolvedType) absoluteTypes.set(`${type.fullName}.${field.name}`, field.resolvedType.fullName);
      let jsonName = field.name;
      if (properties && !properties.includes(field.name) && !SPECIAL_FIELDS.has(`${type.name}.${field.name}`)) {
        const sameLetters = properties.find((p) => p.toLowerCase() === field.name.toLowerCase());
        const embedded = field.resolvedType instanceof protobuf.Type ? field.resolvedType : undefined;
        if (sameLetters) {
          // The proto name is the Go field name (`name=Webhooks`); JSON uses the json tag.
          jsonName = sameLetters;
          setOption(field, 'json', jsonName);
        } else if (embedded && !field.repeated && embeddedFits(embedded, new Set(properties.map((p) => p.toLowerCase())))) {
          // An embedded Go struct (`json:",inline"`): its fields sit in the parent's JSON object.
          setOption(field, 'inline', true);
          for (const p of properties) if (deepHas(embedded, p)) covered.add(p);
          continue;
        } else {
          unexplained.push(`${type.fullName}.${field.name}`);
        }
      }
      covered.add(jsonName);
      if (field.repeated || field.map || field.resolvedType) continue;
      const key = `${type.name}.${jsonName}`;
      const isString = field.type === 'string' || field.type === 'bytes';
      if (NON_POINTER_SCALARS.has(key) || POINTER_STRINGS.has(key)) usedFacts.add(key);
      const keep = required.has(jsonName) ||
        (isString ? POINTER_STRINGS.has(key) : !NON_POINTER_SCALARS.has(key));
      if (keep) setOption(field, 'keepZero', true);
    }
    if (properties && definitions[swaggerName(type.fullName.slice(1))] && !SPECIAL_MESSAGES.has(type.name)) {
      for (const p of properties) if (!covered.has(p)) uncovered.push(`${type.fullName}.${p}`);
    }
  }

  // Serialize with protobufjs, then strip comments and options and add ours.
  const json = root.toJSON({ keepComments: false }) as protobuf.INamespace;
  const strip = (ns: Record<string, unknown>, path: string): void => {
    delete ns.options;
    delete ns.comment;
    delete ns.edition; // proto2 is protobufjs' default edition
    const fields = ns.fields as Record<string, Record<string, unknown>> | undefined;
    if (fields) {
      for (const [name, field] of Object.entries(fields)) {
        delete field.options;
        delete field.comment;
        const absolute = absoluteTypes.get(`${path}.${name}`);
        if (absolute) field.type = absolute;
        const options = fieldOptions.get(`${path}.${name}`);
        if (options) field.options = options;
      }
      if (listWrappers.has(path.slice(1))) ns.options = { listWrapper: true };
    }
    const nested = ns.nested as Record<string, Record<string, unknown>> | undefined;
    if (nested) for (const [name, child] of Object.entries(nested)) strip(child, `${path}.${name}`);
  };
  strip(json as Record<string, unknown>, '');

  const kinds: Record<string, string> = {};
  for (const [name, def] of Object.entries(definitions)) {
    const message = name.replace(/^io\.k8s\./, 'k8s.io.');
    if (!root.lookup(message)) continue;
    for (const gvk of def['x-kubernetes-group-version-kind'] ?? []) {
      const apiVersion = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
      kinds[`${apiVersion}/${gvk.kind}`] = message;
    }
  }
  for (const [apiVersion, kind, message] of EXTRA_KINDS) {
    if (!root.lookup(message)) throw new Error(`missing message ${message}`);
    kinds[`${apiVersion}/${kind}`] = message;
  }
  const sortedKinds = Object.fromEntries(Object.entries(kinds).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'descriptor.json'), JSON.stringify(json));
  writeFileSync(join(outDir, 'kinds.json'), `${JSON.stringify(sortedKinds, null, 1)}\n`);
  writeFileSync(join(outDir, 'NOTICE'), NOTICE);

  const unusedFacts = [...NON_POINTER_SCALARS, ...POINTER_STRINGS].filter((key) => !usedFacts.has(key));
  if (unusedFacts.length) throw new Error(`pointer facts that match no field: ${unusedFacts.join(', ')}`);
  console.log(`${types.length} messages, ${Object.keys(sortedKinds).length} kinds, ${listWrappers.size} list wrappers`);
  if (uncovered.length) console.log(`JSON properties without a proto field: ${uncovered.join(', ')}`);
  if (unexplained.length) console.log(`proto fields the Swagger does not name (kept as is): ${unexplained.join(', ')}`);
}

const NOTICE = `descriptor.json is derived from the protobuf definitions (generated.proto) of
Kubernetes v1.36.3: k8s.io/api at tag kubernetes-1.36.3
(3fde3c43c3cf3447606b9c2ac2c6257095444387) and k8s.io/apimachinery at tag
kubernetes-1.36.3 (40bf4b2b62f8838b9b37de7b407793f1f17ee225).
kinds.json is derived from the Kubernetes release-1.36 OpenAPI (Swagger 2.0)
specification (x-kubernetes-group-version-kind of its definitions).

Copyright The Kubernetes Authors.
Licensed under the Apache License, Version 2.0
(http://www.apache.org/licenses/LICENSE-2.0).

Changes: converted to the protobufjs JSON descriptor format; comments and file
options removed; the options keepZero and listWrapper added. Generated by
scripts/generate-proto.ts.
`;

main();
