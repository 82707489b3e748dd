/** The Kubernetes API shapes the workbench reads (meta/v1 and discovery), as a client sees them. */

// Type-only imports: the wire shapes are declared once, in the core, and no core code is bundled.
import type { KubeList as ServerKubeList, KubeObject as ServerKubeObject } from '../../core/api/types';
import type { Status as ServerStatus } from '../../core/errors/status';

export type { ListMeta, ObjectMeta } from '../../core/api/types';
export type { StatusCause, StatusDetails } from '../../core/errors/status';

/** An object as the workbench holds it: a manifest about to be created may lack any field. */
export type KubeObject = Partial<ServerKubeObject>;

export type KubeList<T extends KubeObject = KubeObject> = ServerKubeList<T>;

/**
 * meta/v1 Status as a client receives it, kept whole so the UI can show reason
 * and causes. Any server may leave fields out or send reasons this one never
 * does, so everything but kind and apiVersion is optional and reason is any string.
 */
export interface Status extends Partial<Omit<ServerStatus, 'kind' | 'apiVersion' | 'reason'>> {
  kind: 'Status';
  apiVersion: 'v1';
  reason?: string;
}

export interface APIResource {
  name: string;
  singularName?: string;
  namespaced: boolean;
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
}

export interface APIResourceList {
  kind: 'APIResourceList';
  groupVersion: string;
  resources: APIResource[];
}

export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

export interface APIGroup {
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion?: GroupVersionForDiscovery;
}

export interface APIGroupList {
  kind: 'APIGroupList';
  groups: APIGroup[];
}
