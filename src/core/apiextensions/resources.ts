/**
 * What a CustomResourceDefinition serves: one ResourceType per served
 * version (as apiextensions-apiserver's discovery and handler build them),
 * the OpenAPI definitions of the kind and its list, and the facts the
 * custom resource handlers need (schema, printer columns, scale paths,
 * deprecation warning), looked up by the ResourceType.
 */
import type { ResourceType, SchemaObject, SubresourceInfo } from '../registry/types';
import { compareVersionPriority } from '../registry/versionPriority';
import type {
  CustomResourceColumnDefinition,
  CustomResourceDefinition,
  CustomResourceDefinitionVersion,
  CustomResourceSubresourceScale,
  JSONSchemaProps,
} from './types';

/** Verbs of a custom resource, in the order apiextensions-apiserver's discovery lists them. */
export const CUSTOM_RESOURCE_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];
/** What a terminating CRD still serves. */
const TERMINATING_VERBS = ['delete', 'deletecollection', 'get', 'list', 'watch'];
const SUBRESOURCE_VERBS = ['get', 'patch', 'update'];

const objectMetaRef = '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const listMetaRef = '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta';
const apiVersionDescription =
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const kindDescription =
  'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

/** What the custom resource handlers know about one served version. */
export interface CustomResourceInfo {
  crd: CustomResourceDefinition;
  version: CustomResourceDefinitionVersion;
  /** The version's structural schema (openAPIV3Schema), undefined when the CRD has none. */
  schema: JSONSchemaProps | undefined;
  /** Printer columns of the version (empty: Name and Age). */
  printerColumns: CustomResourceColumnDefinition[];
  scale?: CustomResourceSubresourceScale;
  hasStatus: boolean;
  /** Warning header text for a deprecated version. */
  deprecationWarning?: string;
  /** The version objects are stored in. */
  storageVersion: string;
  /** The CRD is being deleted: its objects may be read and deleted, not created. */
  terminating: boolean;
  /** Aborted when this registration is withdrawn (CRD deleted or changed): its watches end, as kube closes them. */
  withdrawn: AbortController;
}

const infoByType = new WeakMap<ResourceType, CustomResourceInfo>();

/** The CRD facts behind a custom resource type (undefined for built-in types). */
export function customResourceInfo(type: ResourceType): CustomResourceInfo | undefined {
  return infoByType.get(type);
}

/** OpenAPI definition name of a custom kind: the group reversed, then version and kind (com.example.v1.Widget). */
export function definitionName(group: string, version: string, kind: string): string {
  return [...group.split('.').reverse(), version, kind].join('.');
}

/** The deprecation warning of a version: its own text, or kube's default naming the preferred non-deprecated version. */
export function deprecationWarningFor(crd: CustomResourceDefinition, version: CustomResourceDefinitionVersion): string | undefined {
  if (!version.deprecated) return undefined;
  if (version.deprecationWarning !== undefined) return version.deprecationWarning;
  const { group, names } = crd.spec;
  let msg = `${group}/${version.name} ${names.kind} is deprecated`;
  const replacement = crd.spec.versions
    .filter((v) => v.served && !v.deprecated)
    .map((v) => v.name)
    .sort(compareVersionPriority)[0];
  if (replacement) msg += `; use ${group}/${replacement} ${names.kind}`;
  return msg;
}

function kindSchema(crd: CustomResourceDefinition, version: string, schema: JSONSchemaProps | undefined): SchemaObject {
  const { group, names } = crd.spec;
  const base: JSONSchemaProps = schema ? structuredClone(schema) : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const properties = { ...(base.properties ?? {}) };
  properties['apiVersion'] = { description: apiVersionDescription, type: 'string' };
  properties['kind'] = { description: kindDescription, type: 'string' };
  properties['metadata'] = { $ref: objectMetaRef };
  return {
    ...base,
    type: 'object',
    properties,
    'x-kubernetes-group-version-kind': [{ group, version, kind: names.kind }],
  };
}

function listSchema(crd: CustomResourceDefinition, version: string, itemDefinition: string): SchemaObject {
  const { group, names } = crd.spec;
  const listKind = names.listKind ?? `${names.kind}List`;
  return {
    description: `${listKind} is a list of ${names.kind}`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { description: apiVersionDescription, type: 'string' },
      items: { description: `List of ${names.plural}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`, type: 'array', items: { $ref: `#/definitions/${itemDefinition}` } },
      kind: { description: kindDescription, type: 'string' },
      metadata: { $ref: listMetaRef },
    },
    'x-kubernetes-group-version-kind': [{ group, version, kind: listKind }],
  };
}

export interface ServedVersion {
  type: ResourceType;
  definitions: Record<string, SchemaObject>;
}

/** The storage version's name (the one version with storage: true). */
export function storageVersionOf(crd: CustomResourceDefinition): string {
  return crd.spec.versions.find((v) => v.storage)?.name ?? crd.spec.versions[0]?.name ?? '';
}

/**
 * The resource types a CRD serves, one per version with served: true, using
 * the names the CRD has been granted (status.acceptedNames).
 */
export function servedVersions(crd: CustomResourceDefinition, storageVersionHash: string | undefined): ServedVersion[] {
  const { group, scope } = crd.spec;
  const names = { ...crd.spec.names, ...(crd.status?.acceptedNames ?? {}) };
  const storageVersion = storageVersionOf(crd);
  const terminating = !!crd.status?.conditions?.some((c) => c.type === 'Terminating' && c.status === 'True');
  const out: ServedVersion[] = [];
  for (const v of crd.spec.versions) {
    if (!v.served) continue;
    const definition = definitionName(group, v.name, names.kind);
    const listKind = names.listKind || `${names.kind}List`;
    const subresources: SubresourceInfo[] = [];
    if (v.subresources?.status) subresources.push({ name: 'status', kind: { group, version: v.name, kind: names.kind }, verbs: SUBRESOURCE_VERBS });
    if (v.subresources?.scale) subresources.push({ name: 'scale', kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: SUBRESOURCE_VERBS });
    const type: ResourceType = {
      group,
      version: v.name,
      kind: names.kind,
      resource: names.plural,
      singular: names.singular || names.kind.toLowerCase(),
      scope,
      verbs: terminating ? TERMINATING_VERBS : CUSTOM_RESOURCE_VERBS,
      subresources,
      definition,
      listKind,
      custom: true,
      ...(names.shortNames?.length ? { shortNames: names.shortNames } : {}),
      ...(names.categories?.length ? { categories: names.categories } : {}),
      ...(storageVersionHash ? { storageVersionHash } : {}),
    };
    const schema = v.schema?.openAPIV3Schema;
    infoByType.set(type, {
      crd,
      version: v,
      schema,
      printerColumns: v.additionalPrinterColumns ?? [],
      scale: v.subresources?.scale,
      hasStatus: !!v.subresources?.status,
      deprecationWarning: deprecationWarningFor(crd, v),
      storageVersion,
      terminating,
      withdrawn: new AbortController(),
    });
    out.push({
      type,
      definitions: {
        [definition]: kindSchema(crd, v.name, schema),
        [definitionName(group, v.name, listKind)]: listSchema(crd, v.name, definition),
      },
    });
  }
  return out;
}

/** Discovery's storageVersionHash: base64 of the first 8 bytes of sha256("group/version/Kind") of the storage version. */
export async function storageVersionHash(group: string, version: string, kind: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${group}/${version}/${kind}`)));
  let s = '';
  for (const b of digest.subarray(0, 8)) s += String.fromCharCode(b);
  return btoa(s);
}
