/**
 * kube-controller-manager's --use-service-account-credentials
 * (k8s.io/controller-manager/pkg/clientbuilder): each controller's client is
 * built for a ServiceAccount of its own in kube-system, which the client
 * builder creates with the manager's own credentials, so each controller acts
 * as system:serviceaccount:kube-system:<name> with only what the default RBAC
 * policy grants it (system:controller:<name>). The service account token
 * controller keeps the manager's root credentials, as upstream starts it.
 *
 * In process, a controller's identity is a property of the store views it is
 * given at start: admission sees it, and its writes are authorized with it.
 * Its reads (the informers) are not authorized.
 */
import { newInternalError, StatusError } from '../errors';
import type { Store, UpdateFunc } from '../registry/generic/store';
import type { ResourceType } from '../registry/types';
import { newAuthorizationForbidden } from '../auth/authorizer/attributes';
import type { Attributes, Authorizer } from '../auth/authorizer/types';
import { allAuthenticated, type UserInfo } from '../auth/user';
import { makeGroupNames, makeUsername } from '../auth/serviceaccount/username';
import type { ControllerName } from './names';

/** Where the controllers' ServiceAccounts live (metav1.NamespaceSystem). */
export const controllerAccountsNamespace = 'kube-system';

/**
 * The name each controller's client is built for (ClientBuilder.ClientOrDie in
 * cmd/kube-controller-manager/app); absent: the manager's root credentials.
 */
export const controllerServiceAccounts: Readonly<Partial<Record<ControllerName, string>>> = {
  'garbage-collector-controller': 'generic-garbage-collector',
  'namespace-controller': 'namespace-controller',
  'deployment-controller': 'deployment-controller',
  'replicaset-controller': 'replicaset-controller',
  'statefulset-controller': 'statefulset-controller',
  'daemonset-controller': 'daemon-set-controller',
  'replicationcontroller-controller': 'replication-controller',
  'serviceaccount-controller': 'service-account-controller',
  'root-ca-certificate-publisher-controller': 'root-ca-cert-publisher',
  'certificatesigningrequest-signing-controller': 'certificate-controller',
  'pod-garbage-collector-controller': 'pod-garbage-collector',
  'resourcequota-controller': 'resourcequota-controller',
  'disruption-controller': 'disruption-controller',
  // The node lifecycle and taint eviction controllers share the node controller's role.
  'node-lifecycle-controller': 'node-controller',
  'taint-eviction-controller': 'node-controller',
  'job-controller': 'job-controller',
  'ttl-after-finished-controller': 'ttl-after-finished-controller',
  'cronjob-controller': 'cronjob-controller',
  'endpoints-controller': 'endpoint-controller',
  'endpointslice-controller': 'endpointslice-controller',
  'endpointslice-mirroring-controller': 'endpointslicemirroring-controller',
  'persistentvolumeclaim-protection-controller': 'pvc-protection-controller',
  'persistentvolume-protection-controller': 'pv-protection-controller',
  'persistentvolume-binder-controller': 'persistent-volume-binder',
  'ephemeral-volume-controller': 'ephemeral-volume-controller',
  'bootstrap-signer-controller': 'bootstrap-signer',
  'token-cleaner-controller': 'token-cleaner',
  'horizontal-pod-autoscaler-controller': 'horizontal-pod-autoscaler',
};

/**
 * getOrCreateServiceAccount: the account in kube-system, created when missing,
 * and the user its token authenticates as (uid: the account's).
 */
export async function ensureControllerServiceAccount(accounts: Store, name: string): Promise<UserInfo> {
  const ns = controllerAccountsNamespace;
  let kv = await accounts.getKv(ns, name);
  if (!kv) {
    try {
      await accounts.create(ns, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: ns } });
    } catch (e) {
      if (!(e instanceof StatusError && e.reason === 'AlreadyExists')) throw e;
    }
    kv = await accounts.getKv(ns, name);
  }
  const uid = kv ? accounts.decode(kv).metadata.uid : undefined;
  return { username: makeUsername(ns, name), ...(uid ? { uid } : {}), groups: [...makeGroupNames(ns), allAuthenticated] };
}

/**
 * The storeFor a controller is given: the manager's views, as `user` (admission
 * sees it) with every write authorized for it. One view per type, made once.
 */
export function controllerStoreFor(storeFor: (type: ResourceType) => Store, user: UserInfo, authorizer: () => Authorizer): (type: ResourceType) => Store {
  const views = new WeakMap<ResourceType, Store>();
  return (type) => {
    let view = views.get(type);
    if (!view) views.set(type, (view = authorizedWrites(storeFor(type).withUser(user), user, authorizer)));
    return view;
  };
}

/** Throws kube-apiserver's 403 (or 500 on an evaluation error without Allow) unless one of `verbs` is allowed. */
async function authorize(authorizer: Authorizer, attrs: Attributes, alternative?: string): Promise<void> {
  const result = await authorizer.authorize(attrs);
  if (result.decision === 'Allow') return;
  if (alternative && (await authorizer.authorize({ ...attrs, verb: alternative })).decision === 'Allow') return;
  if (result.error) throw newInternalError(new Error(result.error));
  throw newAuthorizationForbidden(attrs, result.reason);
}

/**
 * The store whose writes are authorized for `user` first, as the API
 * server's authorization filter does each request of a controller's client.
 * An in-process update stands for the update or the patch the upstream
 * controller sends (a ReplicaSet adopting a pod patches it): either verb
 * allows it.
 */
export function authorizedWrites(store: Store, user: UserInfo, authorizer: () => Authorizer): Store {
  const { group, version, resource } = store.type;
  const namespaced = store.namespaced;
  const attrs = (verb: string, namespace: string, name: string, subresource = ''): Attributes => ({
    user, verb, isResourceRequest: true, path: '', namespace: namespaced ? namespace : '', apiGroup: group, apiVersion: version, resource, subresource, name,
  });
  const authorized = Object.create(store) as Store;
  authorized.createStored = async (namespace, obj, options) => {
    // A create names no object in its URL, except a subresource's (pods/eviction, pods/binding).
    await authorize(authorizer(), attrs('create', namespace, options?.subresource ? (obj.metadata.name ?? '') : '', options?.subresource));
    return store.createStored(namespace, obj, options);
  };
  authorized.update = async (namespace, name, tryUpdate: UpdateFunc, options) => {
    await authorize(authorizer(), attrs('update', namespace, name, options?.subresource), 'patch');
    return store.update(namespace, name, tryUpdate, options);
  };
  authorized.guaranteedUpdate = async (namespace, name, tryUpdate, options) => {
    await authorize(authorizer(), attrs('update', namespace, name), 'patch');
    return store.guaranteedUpdate(namespace, name, tryUpdate, options);
  };
  authorized.delete = async (namespace, name, options) => {
    await authorize(authorizer(), attrs('delete', namespace, name, options?.subresource));
    return store.delete(namespace, name, options);
  };
  return authorized;
}
