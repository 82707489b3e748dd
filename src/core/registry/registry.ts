/**
 * ResourceRegistry: the server's table of group/version/resources, built from
 * the bundled Kubernetes registry, narrowed to what this server serves
 * (default enablement plus --runtime-config), and extended at runtime with
 * custom resources.
 *
 * Lookups that serve requests (`resourceFor`, `kindFor`, `resourcesIn`,
 * `groups`) only see served resources, so a disabled version answers 404 like
 * kube-apiserver; `allResources` and `knownResource` see everything the bundle
 * knows (for deprecation checks and explanations).
 */
import {
  RuntimeConfigError,
  emptyRuntimeConfig,
  groupVersionServed,
  parseRuntimeConfig,
  resourceServed,
  type RuntimeConfig,
} from './runtimeConfig';
import { withLifecycle } from './lifecycle';
import type {
  ApiGroup,
  GroupVersionKind,
  OperationParameters,
  RegistryBundle,
  ResourceType,
  SchemaObject,
  SubresourceInfo,
} from './types';
import { compareVersionPriority } from './versionPriority';

export interface RegistryOptions {
  /** kube-apiserver --runtime-config, e.g. "api/beta=true,batch/v1=false,networking.k8s.io/v1beta1/ipaddresses=true". */
  runtimeConfig?: string;
}

/** Group priority kube-apiserver gives the APIServices of custom resource groups. */
export const CUSTOM_GROUP_PRIORITY = 1000;

const gvKey = (group: string, version: string) => `${group}/${version}`;
const gvrKey = (group: string, version: string, resource: string) => `${group}/${version}/${resource}`;
const gvkKey = (group: string, version: string, kind: string) => `${group}/${version}/${kind}`;

interface GroupInfo {
  name: string;
  priority: number;
  /** Preferred version the bundle names, used while it is served. */
  bundlePreferred?: string;
  enabledByDefault?: Set<string>;
}

/** What a served group version looks like to discovery. */
export interface ServedGroup {
  name: string;
  /** Served versions, preferred first (kube version priority). */
  versions: string[];
  preferredVersion: string;
}

export class ResourceRegistry {
  readonly kubernetesVersion: string;
  operationParameters: OperationParameters | undefined;
  /** Bumped on every addResource/removeResource, so caches built from the registry can tell they are stale. */
  generation = 0;

  private readonly runtimeConfig: RuntimeConfig;
  private readonly groupInfo = new Map<string, GroupInfo>();
  private readonly resources = new Map<string, ResourceType>();
  private readonly served = new Set<string>();
  private readonly definitions = new Map<string, SchemaObject>();
  private readonly definitionByGvk = new Map<string, string>();
  /** definitionByGvk entries set from a resource's `definition` because no schema listed its GVK (yet). */
  private readonly fallbackGvks = new Set<string>();
  /** Definitions that came with a runtime resource, removed with it. */
  private readonly ownedDefinitions = new Map<string, string[]>();
  private readonly gvRevisions = new Map<string, number>();
  private cachedGroups: ServedGroup[] | undefined;
  private readonly cachedResourcesIn = new Map<string, ResourceType[]>();
  /** resourceFor's answers (null: none), until the next change. */
  private readonly servedByGvr = new Map<string, Map<string, Map<string, ResourceType | null>>>();
  private servedByGvrSize = 0;

  constructor(bundle: RegistryBundle, options: RegistryOptions = {}) {
    this.kubernetesVersion = bundle.kubernetesVersion;
    this.operationParameters = bundle.operationParameters;
    this.runtimeConfig = parseRuntimeConfig(options.runtimeConfig);
    for (const g of bundle.groups) {
      this.groupInfo.set(g.name, {
        name: g.name,
        priority: g.priority ?? CUSTOM_GROUP_PRIORITY,
        bundlePreferred: g.preferredVersion,
        enabledByDefault: g.enabledByDefault ? new Set(g.enabledByDefault) : undefined,
      });
    }
    for (const [name, schema] of Object.entries(bundle.definitions)) this.indexDefinition(name, schema);
    for (const r of bundle.resources) this.insert(withLifecycle(r, bundle.kubernetesVersion));
    this.checkRuntimeConfig();
  }

  // -------------------------------------------------------------------------
  // Served lookups.

  /** The served resource at group/version/resource (plural), or undefined. */
  resourceFor(group: string, version: string, resource: string): ResourceType | undefined {
    // Every request asks: answers are kept by group, version and resource (strings a request shares
    // with the next to the same path, their hashes known), so no key is built per call.
    let byVersion = this.servedByGvr.get(group);
    if (!byVersion) this.servedByGvr.set(group, (byVersion = new Map()));
    let byResource = byVersion.get(version);
    if (!byResource) byVersion.set(version, (byResource = new Map()));
    let found = byResource.get(resource);
    if (found === undefined) {
      // Paths nothing serves are remembered too: bounded, the answers start over when full.
      if (++this.servedByGvrSize > 4096) {
        this.servedByGvr.clear();
        this.servedByGvrSize = 0;
      }
      const key = gvrKey(group, version, resource);
      byResource.set(resource, (found = (this.served.has(key) && this.resources.get(key)) || null));
    }
    return found ?? undefined;
  }

  /** The served resource whose kind is `kind` in group/version. */
  kindFor(group: string, version: string, kind: string): ResourceType | undefined {
    return this.resourcesIn(group, version).find((r) => r.kind === kind);
  }

  /** A served resource's subresource, e.g. ("apps","v1","deployments","scale"). */
  subresourceFor(group: string, version: string, resource: string, subresource: string): SubresourceInfo | undefined {
    return this.resourceFor(group, version, resource)?.subresources.find((s) => s.name === subresource);
  }

  /** Served resources of one group version, sorted by resource name. */
  resourcesIn(group: string, version: string): ResourceType[] {
    const key = gvKey(group, version);
    let list = this.cachedResourcesIn.get(key);
    if (!list) {
      list = [...this.resources.entries()]
        .filter(([k, r]) => r.group === group && r.version === version && this.served.has(k))
        .map(([, r]) => r)
        .sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
      this.cachedResourcesIn.set(key, list);
    }
    return list;
  }

  /** Whether the group version has at least one served resource. */
  isServed(group: string, version: string): boolean {
    return this.resourcesIn(group, version).length > 0;
  }

  /**
   * Served groups in discovery order (group priority, highest first, then
   * name); the core group is the one named "". Each lists its served
   * versions, preferred first.
   */
  groups(): ServedGroup[] {
    if (this.cachedGroups) return this.cachedGroups;
    const versions = new Map<string, Set<string>>();
    for (const [key, r] of this.resources) {
      if (!this.served.has(key)) continue;
      if (!versions.has(r.group)) versions.set(r.group, new Set());
      versions.get(r.group)!.add(r.version);
    }
    const groups = [...versions.entries()].map(([name, set]) => {
      const sorted = [...set].sort(compareVersionPriority);
      const bundlePreferred = this.groupInfo.get(name)?.bundlePreferred;
      // The bundle's preferred version leads while served (it is the storage version).
      const preferred = bundlePreferred && set.has(bundlePreferred) ? bundlePreferred : sorted[0];
      return { name, versions: [preferred, ...sorted.filter((v) => v !== preferred)], preferredVersion: preferred };
    });
    const priority = (name: string) => this.groupInfo.get(name)?.priority ?? CUSTOM_GROUP_PRIORITY;
    groups.sort((a, b) => priority(b.name) - priority(a.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.cachedGroups = groups;
    return groups;
  }

  /** The served group, or undefined. */
  group(name: string): ServedGroup | undefined {
    return this.groups().find((g) => g.name === name);
  }

  /** Preferred served version of a group. */
  preferredVersion(group: string): string | undefined {
    return this.group(group)?.preferredVersion;
  }

  /** Counter that changes whenever the resources of this group version change (for document caches). */
  groupVersionRevision(group: string, version: string): number {
    return this.gvRevisions.get(gvKey(group, version)) ?? 0;
  }

  // -------------------------------------------------------------------------
  // Everything the registry knows, served or not.

  /** Every known resource, served or not, in bundle order followed by runtime additions. */
  allResources(): ResourceType[] {
    return [...this.resources.values()];
  }

  /** A known resource even when this server does not serve its version. */
  knownResource(group: string, version: string, resource: string): ResourceType | undefined {
    return this.resources.get(gvrKey(group, version, resource));
  }

  /** ApiGroup facts for a known group (bundle or runtime), served or not. */
  knownGroup(name: string): ApiGroup | undefined {
    const info = this.groupInfo.get(name);
    const versions = new Set<string>();
    for (const r of this.resources.values()) if (r.group === name) versions.add(r.version);
    if (!info && versions.size === 0) return undefined;
    const sorted = [...versions].sort(compareVersionPriority);
    return {
      name,
      versions: sorted,
      preferredVersion: info?.bundlePreferred ?? sorted[0],
      enabledByDefault: info?.enabledByDefault ? sorted.filter((v) => info.enabledByDefault!.has(v)) : sorted,
      priority: info?.priority ?? CUSTOM_GROUP_PRIORITY,
    };
  }

  // -------------------------------------------------------------------------
  // Schemas.

  /** A schema by definition name (e.g. io.k8s.api.core.v1.Pod), refs as #/definitions/... */
  definition(name: string): SchemaObject | undefined {
    return this.definitions.get(name);
  }

  /** Name of the definition describing a kind (kinds, list kinds and subresource kinds such as autoscaling/v1 Scale). */
  definitionNameFor(gvk: GroupVersionKind): string | undefined {
    return this.definitionByGvk.get(gvkKey(gvk.group, gvk.version, gvk.kind));
  }

  /** The schema of a kind. */
  schemaFor(gvk: GroupVersionKind): SchemaObject | undefined {
    const name = this.definitionNameFor(gvk);
    return name === undefined ? undefined : this.definitions.get(name);
  }

  /**
   * Indexes the bundle's schemas (and takes its operation parameters) when
   * they arrive after construction (the service worker loads them on first use): the result is what a registry
   * built with them has. Runtime resources' own GVK entries and schemas stay.
   */
  loadBundleDefinitions(definitions: Record<string, SchemaObject>, operationParameters?: OperationParameters): void {
    this.operationParameters ??= operationParameters;
    for (const [name, schema] of Object.entries(definitions)) {
      if (this.definitions.has(name)) continue;
      this.definitions.set(name, schema);
      const gvks = schema['x-kubernetes-group-version-kind'] ?? [];
      for (const gvk of gvks) {
        const key = gvkKey(gvk.group, gvk.version, gvk.kind);
        // A construction-time index would have seen this schema before any resource's fallback entry.
        if (gvks.length === 1 || !this.definitionByGvk.has(key) || this.fallbackGvks.has(key)) {
          this.definitionByGvk.set(key, name);
          this.fallbackGvks.delete(key);
        }
      }
    }
  }

  /** All definition names (sorted), e.g. for building OpenAPI documents. */
  definitionNames(): string[] {
    return [...this.definitions.keys()].sort();
  }

  // -------------------------------------------------------------------------
  // Runtime changes (custom resources).

  /**
   * Adds (or replaces) a resource, with the schemas it needs. A custom resource
   * is served unless its `enabledByDefault` is false (a CRD version with
   * served: false). `groupPriority` applies when the group is new.
   */
  addResource(
    resource: ResourceType,
    definitions: Record<string, SchemaObject> = {},
    groupPriority: number = CUSTOM_GROUP_PRIORITY,
  ): void {
    const key = gvrKey(resource.group, resource.version, resource.resource);
    if (this.resources.has(key)) this.removeResource(resource.group, resource.version, resource.resource);
    if (!this.groupInfo.has(resource.group)) {
      this.groupInfo.set(resource.group, { name: resource.group, priority: groupPriority });
    }
    for (const [name, schema] of Object.entries(definitions)) this.indexDefinition(name, schema);
    this.ownedDefinitions.set(key, Object.keys(definitions));
    // Runtime resources also resolve by GVK even when the schema carries no GVK extension.
    this.definitionByGvk.set(gvkKey(resource.group, resource.version, resource.kind), resource.definition);
    this.fallbackGvks.delete(gvkKey(resource.group, resource.version, resource.kind));
    this.insert(resource);
    this.changed(resource.group, resource.version);
  }

  /** Removes a resource; returns whether it existed. */
  removeResource(group: string, version: string, resource: string): boolean {
    const key = gvrKey(group, version, resource);
    const existing = this.resources.get(key);
    if (!existing) return false;
    this.resources.delete(key);
    this.served.delete(key);
    const stillUsed = [...this.resources.values()].some(
      (r) => r.group === group && r.version === version && r.kind === existing.kind,
    );
    if (!stillUsed) {
      this.definitionByGvk.delete(gvkKey(group, version, existing.kind));
      this.fallbackGvks.delete(gvkKey(group, version, existing.kind));
    }
    for (const name of this.ownedDefinitions.get(key) ?? []) this.definitions.delete(name);
    this.ownedDefinitions.delete(key);
    if (![...this.resources.values()].some((r) => r.group === group) && !this.isBundleGroup(group)) {
      this.groupInfo.delete(group);
    }
    this.changed(group, version);
    return true;
  }

  /** Whether the group comes from the bundled built-in API (not a custom resource group). */
  isBuiltinGroup(group: string): boolean {
    return this.isBundleGroup(group);
  }

  // -------------------------------------------------------------------------

  private isBundleGroup(group: string): boolean {
    return this.groupInfo.get(group)?.bundlePreferred !== undefined;
  }

  private insert(r: ResourceType): void {
    const key = gvrKey(r.group, r.version, r.resource);
    this.resources.set(key, r);
    let isServed: boolean;
    if (this.isBundleGroup(r.group)) {
      const gvDefault = r.enabledByDefault !== false && this.defaultEnabled(r.group, r.version);
      const gvServed = groupVersionServed(this.runtimeConfig, r.group, r.version, gvDefault);
      isServed = resourceServed(this.runtimeConfig, r.group, r.version, r.resource, gvServed);
    } else {
      // Custom resources follow their CRD's `served`, never --runtime-config.
      isServed = r.enabledByDefault !== false;
    }
    if (isServed) this.served.add(key);
    else this.served.delete(key);
    const gvk = gvkKey(r.group, r.version, r.kind);
    if (!this.definitionByGvk.has(gvk)) {
      this.definitionByGvk.set(gvk, r.definition);
      this.fallbackGvks.add(gvk);
    }
  }

  private defaultEnabled(group: string, version: string): boolean {
    const enabled = this.groupInfo.get(group)?.enabledByDefault;
    return enabled === undefined || enabled.has(version);
  }

  private indexDefinition(name: string, schema: SchemaObject): void {
    this.definitions.set(name, schema);
    const gvks = schema['x-kubernetes-group-version-kind'] ?? [];
    for (const gvk of gvks) {
      const key = gvkKey(gvk.group, gvk.version, gvk.kind);
      // Shared option kinds (DeleteOptions) list many GVKs; a kind's own schema lists one and wins.
      if (gvks.length === 1 || !this.definitionByGvk.has(key)) {
        this.definitionByGvk.set(key, name);
        this.fallbackGvks.delete(key);
      }
    }
  }

  private changed(group: string, version: string): void {
    this.generation++;
    this.gvRevisions.set(gvKey(group, version), this.groupVersionRevision(group, version) + 1);
    this.cachedGroups = undefined;
    this.cachedResourcesIn.clear();
    this.servedByGvr.clear();
    this.servedByGvrSize = 0;
  }

  /** kube-apiserver refuses to start when --runtime-config names a group version it does not have. */
  private checkRuntimeConfig(): void {
    const knownGvs = new Set([...this.resources.values()].map((r) => gvKey(r.group, r.version)));
    for (const key of this.runtimeConfig.groupVersions.keys()) {
      if (!knownGvs.has(key)) throw new RuntimeConfigError(`unknown api groups ${key.startsWith('/') ? key.slice(1) : key}`);
    }
    for (const key of this.runtimeConfig.resources.keys()) {
      if (!this.resources.has(key)) throw new RuntimeConfigError(`unknown api resource ${key.startsWith('/') ? key.slice(1) : key}`);
    }
  }
}

export { RuntimeConfigError, emptyRuntimeConfig, parseRuntimeConfig };
