/** What admission knows about one write (k8s.io/apiserver/pkg/admission.Attributes). */
import type { KubeObject } from '../api/types';
import type { UserInfo } from '../auth/user';
import type { GroupVersionKind, GroupVersionResource } from '../registry/types';

export interface AdmissionAttributes {
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  resource: GroupVersionResource;
  kind: GroupVersionKind;
  subresource: string;
  name: string;
  namespace: string;
  namespaced: boolean;
  object?: KubeObject;
  oldObject?: KubeObject;
  dryRun: boolean;
  user: UserInfo;
  /** The options kind of the operation (CreateOptions, UpdateOptions, DeleteOptions). */
  options?: Record<string, unknown>;
}

/** What the built-in plugins (LimitRanger, ResourceQuota) read of a write. */
export type PluginAttributes = Pick<AdmissionAttributes, 'operation' | 'resource' | 'kind' | 'subresource' | 'name' | 'namespace' | 'object' | 'oldObject' | 'dryRun'>;

/** What a validating admission pass leaves on the response besides a denial. */
export interface AdmissionOutcome {
  /** `Warning` header texts (validationActions Warn). */
  warnings: string[];
  /** Audit annotations (validationActions Audit, auditAnnotations), keyed as the audit log keys them. */
  auditAnnotations: Record<string, string>;
}
