/**
 * API lifecycle of built-in versions (k8s.io/apiserver/pkg/endpoints/deprecation
 * over the prerelease-lifecycle markers): which served versions are
 * deprecated, since when, when they stop being served, and what replaces
 * them. A beta version without explicit markers is deprecated three minor
 * releases after its introduction and removed three after that.
 */
import type { GroupVersionKind, ResourceType } from './types';

interface Lifecycle {
  /** The release the version appeared in (beta versions: drives the defaults). */
  introduced?: string;
  /** The release that deprecated it, when not introduced + 3. */
  deprecated?: string;
  /** The release that stops serving it; none for a GA version (kept within the major version). */
  removed?: string | null;
  replacement?: GroupVersionKind;
}

const gvk = (group: string, version: string, kind: string): GroupVersionKind => ({ group, version, kind });

/** Keyed `group/version/Kind` (core: `/v1/Kind`). */
const lifecycles: Record<string, Lifecycle> = {
  '/v1/ComponentStatus': { deprecated: '1.19', removed: null },
  '/v1/Endpoints': { deprecated: '1.33', removed: null, replacement: gvk('discovery.k8s.io', 'v1', 'EndpointSlice') },
  'admissionregistration.k8s.io/v1beta1/MutatingAdmissionPolicy': { introduced: '1.34' },
  'admissionregistration.k8s.io/v1beta1/MutatingAdmissionPolicyBinding': { introduced: '1.34' },
  'certificates.k8s.io/v1beta1/ClusterTrustBundle': { introduced: '1.33' },
  'certificates.k8s.io/v1beta1/PodCertificateRequest': { introduced: '1.35' },
  'coordination.k8s.io/v1beta1/LeaseCandidate': { introduced: '1.33' },
  'networking.k8s.io/v1beta1/IPAddress': { introduced: '1.31', replacement: gvk('networking.k8s.io', 'v1', 'IPAddress') },
  'networking.k8s.io/v1beta1/ServiceCIDR': { introduced: '1.31', replacement: gvk('networking.k8s.io', 'v1', 'ServiceCIDR') },
  'storage.k8s.io/v1beta1/VolumeAttributesClass': { introduced: '1.31', replacement: gvk('storage.k8s.io', 'v1', 'VolumeAttributesClass') },
  'storagemigration.k8s.io/v1beta1/StorageVersionMigration': { introduced: '1.35' },
  ...Object.fromEntries(['DeviceClass', 'ResourceClaim', 'ResourceClaimTemplate', 'ResourceSlice'].flatMap((kind) => [
    [`resource.k8s.io/v1beta1/${kind}`, { introduced: '1.32', replacement: gvk('resource.k8s.io', 'v1', kind) }],
    [`resource.k8s.io/v1beta2/${kind}`, { introduced: '1.33', replacement: gvk('resource.k8s.io', 'v1', kind) }],
  ])),
  'resource.k8s.io/v1beta2/DeviceTaintRule': { introduced: '1.33' },
};

function addMinors(release: string, n: number): string {
  const [major, minor] = release.split('.').map(Number) as [number, number];
  return `${major}.${minor + n}`;
}

function atOrBefore(release: string, current: string): boolean {
  const [a1, a2] = release.split('.').map(Number) as [number, number];
  const [b1, b2] = current.split('.').map(Number) as [number, number];
  return a1 < b1 || (a1 === b1 && a2 <= b2);
}

export interface Deprecation {
  since: string;
  removedRelease?: string;
  replacement?: GroupVersionKind;
}

/** Whether group/version/kind is deprecated as of a release ("1.36"), since when, until when and for what. */
export function deprecationOf(group: string, version: string, kind: string, release: string): Deprecation | undefined {
  const lc = lifecycles[`${group}/${version}/${kind}`];
  if (!lc) return undefined;
  const since = lc.deprecated ?? (lc.introduced ? addMinors(lc.introduced, 3) : undefined);
  if (!since || !atOrBefore(since, release)) return undefined;
  const removedRelease = lc.removed === null ? undefined : lc.removed ?? addMinors(since, 3);
  return { since, removedRelease, replacement: lc.replacement };
}

/** The type with `deprecated` set when its version is deprecated as of kubernetesVersion. */
export function withLifecycle(type: ResourceType, kubernetesVersion: string): ResourceType {
  if (type.deprecated) return type;
  const deprecated = deprecationOf(type.group, type.version, type.kind, kubernetesVersion);
  return deprecated ? { ...type, deprecated } : type;
}

/** The Warning text kube-apiserver sends for a request to a deprecated version (deprecation.WarningMessage). */
export function deprecationWarning(type: ResourceType): string | undefined {
  const d = type.deprecated;
  if (!d?.since) return undefined;
  const gv = type.group ? `${type.group}/${type.version}` : type.version;
  let msg = `${gv} ${type.kind} is deprecated in v${d.since}+`;
  if (d.removedRelease) msg += `, unavailable in v${d.removedRelease}+`;
  if (d.replacement) msg += `; use ${d.replacement.group ? `${d.replacement.group}/${d.replacement.version}` : d.replacement.version} ${d.replacement.kind}`;
  return msg;
}

/**
 * The audit annotations a request to a deprecated version gets
 * (k8s.io/deprecated, and k8s.io/removed-release when a removal is planned),
 * or undefined for a version that is not deprecated.
 */
export function deprecationAnnotations(type: ResourceType, customDeprecated: boolean): Record<string, string> | undefined {
  if (!type.deprecated && !customDeprecated) return undefined;
  const annotations: Record<string, string> = { 'k8s.io/deprecated': 'true' };
  if (type.deprecated?.removedRelease) annotations['k8s.io/removed-release'] = type.deprecated.removedRelease;
  return annotations;
}
