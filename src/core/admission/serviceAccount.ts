/**
 * The ServiceAccount admission plugin (plugin/pkg/admission/serviceaccount),
 * for pod creates: a pod without `spec.serviceAccountName` gets `default`;
 * one whose ServiceAccount does not exist is refused (the namespace's
 * `default` is waited for a little, as the service account controller may
 * not have made it yet); unless the pod or its ServiceAccount sets
 * automountServiceAccountToken false, every container and init container
 * (not the ephemeral ones) mounts a projected `kube-api-access-<suffix>`
 * volume (bound token, kube-root-ca.crt, namespace) read-only at
 * /var/run/secrets/kubernetes.io/serviceaccount, where it mounts nothing
 * there itself; a pod without imagePullSecrets gets its ServiceAccount's.
 * Mirror pods are not changed, and refused if they name a ServiceAccount,
 * a secret or a token projection. Updates are not mutated.
 */
import { isObject, type KubeObject } from '../api/types';
import { newForbidden } from '../errors';
import type { Store } from '../registry/generic/store';
import type { RandomSource } from '../util/clock';
import type { PluginAttributes } from './attributes';
import { cachedOrRead, type NamespacedCache } from './namespacedCache';

type Obj = Record<string, unknown>;

export const defaultServiceAccountName = 'default';
export const defaultAPITokenMountPath = '/var/run/secrets/kubernetes.io/serviceaccount';
const serviceAccountVolumeName = 'kube-api-access';
const mirrorPodAnnotation = 'kubernetes.io/config.mirror';
/** serviceaccount.WarnOnlyBoundTokenExpirationSeconds: one hour and seven seconds, which kube-apiserver extends. */
const tokenExpirationSeconds = 3607;
/** Tries for the namespace's `default` ServiceAccount (kube's numAttempts), and the wait between them. */
const defaultAccountAttempts = 10;
const retryIntervalMs = 100;

export interface ServiceAccountPluginDeps {
  serviceAccounts: Store;
  /** The namespace lister (NamespaceLifecycle's): the object, or a read of it when the cache lacks it. */
  namespace(name: string): KubeObject | undefined | Promise<KubeObject | undefined>;
  /** The ServiceAccount lister's cache (kube's serviceAccountLister), filled by its start(). */
  accounts: NamespacedCache;
  random: RandomSource;
}

const nameSuffixAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** TokenVolumeSource: the projected volume every container mounts. */
export function tokenVolumeSource(): Obj {
  return {
    defaultMode: 420,
    sources: [
      { serviceAccountToken: { expirationSeconds: tokenExpirationSeconds, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
  };
}

const volumeNamePrefix = `${serviceAccountVolumeName}-`;
const containerLists = ['initContainers', 'containers'];

/** Whether a container already mounts something at the token's path. */
function mountsTokenPath(mounts: unknown[]): boolean {
  for (const m of mounts) if (isObject(m) && m['mountPath'] === defaultAPITokenMountPath) return true;
  return false;
}

const list = (spec: Obj, field: string): Obj[] => (Array.isArray(spec[field]) ? (spec[field] as unknown[]).filter(isObject) : []);

export function createServiceAccountPlugin(deps: ServiceAccountPluginDeps) {
  const forbid = (attrs: PluginAttributes, reason: string) => newForbidden({ group: '', resource: 'pods' }, attrs.name, reason);

  function generateName(prefix: string): string {
    let s = '';
    for (const b of deps.random.fill(new Uint8Array(5))) s += nameSuffixAlphabet[b % nameSuffixAlphabet.length];
    return prefix + s;
  }

  /** getServiceAccount after the lister missed: retried for `default`, which the controller may not have made yet; undefined when it does not exist. */
  async function readServiceAccount(namespace: string, name: string): Promise<KubeObject | undefined> {
    const attempts = name === defaultServiceAccountName ? defaultAccountAttempts : 1;
    for (let i = 0; i < attempts; i++) {
      if (i) await new Promise((resolve) => setTimeout(resolve, retryIntervalMs));
      const account = await cachedOrRead(deps.accounts, deps.serviceAccounts, namespace, name);
      if (account) return account;
    }
    return undefined;
  }

  /** NamespaceLifecycle runs before this plugin in kube: a missing or terminating namespace is its refusal, not ours. */
  const namespaceActive = (ns: KubeObject | undefined): boolean => !!ns && !ns.metadata.deletionTimestamp;

  /** The pod's mounts and pull secrets from its account. */
  function admitWith(attrs: PluginAttributes, spec: Obj, accountName: string, account: KubeObject | undefined): void {
    if (!account) {
      throw forbid(attrs, `error looking up service account ${attrs.namespace}/${accountName}: serviceaccount "${accountName}" not found`);
    }
    const automount = typeof spec['automountServiceAccountToken'] === 'boolean' ? spec['automountServiceAccountToken']
      : typeof account['automountServiceAccountToken'] === 'boolean' ? account['automountServiceAccountToken'] : true;
    if (automount) mountServiceAccountToken(spec);
    if (!list(spec, 'imagePullSecrets').length) {
      const secrets = Array.isArray(account['imagePullSecrets']) ? (account['imagePullSecrets'] as unknown[]).filter(isObject) : [];
      if (secrets.length) spec['imagePullSecrets'] = secrets.map((s) => ({ name: s['name'] }));
    }
  }

  function validateMirrorPod(attrs: PluginAttributes, spec: Obj): void {
    if (spec['serviceAccountName']) throw forbid(attrs, 'a mirror pod may not reference service accounts');
    if (referencesSecrets(spec)) throw forbid(attrs, 'a mirror pod may not reference secrets');
    for (const v of list(spec, 'volumes')) {
      const projected = isObject(v['projected']) ? v['projected'] : undefined;
      if (projected && list(projected, 'sources').some((s) => isObject(s['serviceAccountToken']))) {
        throw forbid(attrs, 'a mirror pod may not use ServiceAccountToken volume projections');
      }
    }
  }

  /** Loops without closures or copies of the lists it only reads: every pod create comes here. */
  function mountServiceAccountToken(spec: Obj): void {
    const volumes = Array.isArray(spec['volumes']) ? (spec['volumes'] as unknown[]) : undefined;
    let existing: string | undefined;
    if (volumes) {
      for (const v of volumes) {
        if (!isObject(v)) continue;
        const name = String(v['name'] ?? '');
        if (name.startsWith(volumeNamePrefix)) {
          existing = name;
          break;
        }
      }
    }
    const volumeName = existing ?? generateName(volumeNamePrefix);
    let needsVolume = false;
    for (const field of containerLists) {
      const containers = spec[field];
      if (!Array.isArray(containers)) continue;
      for (const c of containers) {
        if (!isObject(c)) continue;
        const mounts = Array.isArray(c['volumeMounts']) ? (c['volumeMounts'] as unknown[]) : undefined;
        if (mounts && mountsTokenPath(mounts)) continue;
        needsVolume = true;
        const mount = { name: volumeName, readOnly: true, mountPath: defaultAPITokenMountPath };
        c['volumeMounts'] = mounts ? [...mounts.filter(isObject), mount] : [mount];
      }
    }
    if (!existing && needsVolume) spec['volumes'] = [...(volumes ? volumes.filter(isObject) : []), { name: volumeName, projected: tokenVolumeSource() }];
  }

  return {
    admit(attrs: PluginAttributes): Promise<void> | undefined {
      if (attrs.operation !== 'CREATE' || attrs.subresource || attrs.resource.group !== '' || attrs.resource.resource !== 'pods') return undefined;
      const pod = attrs.object;
      if (!pod || !isObject(pod['spec'])) return undefined;
      const spec = pod['spec'];
      if (pod.metadata.annotations?.[mirrorPodAnnotation] !== undefined) {
        validateMirrorPod(attrs, spec);
        return undefined;
      }
      if (!spec['serviceAccountName']) spec['serviceAccountName'] = defaultServiceAccountName;
      const accountName = String(spec['serviceAccountName']);
      const { namespace } = attrs;
      // Both from the listers when they hold them: no wait at all.
      const ns = deps.namespace(namespace);
      const cached = deps.accounts.synced ? deps.accounts.get(namespace, accountName) : undefined;
      if (cached && !(ns instanceof Promise)) {
        if (namespaceActive(ns)) admitWith(attrs, spec, accountName, cached);
        return undefined;
      }
      return Promise.resolve(ns).then((found) => {
        if (!namespaceActive(found)) return undefined;
        if (cached) return admitWith(attrs, spec, accountName, cached);
        return readServiceAccount(namespace, accountName).then((account) => admitWith(attrs, spec, accountName, account));
      });
    },
    /** Fills the ServiceAccount cache. */
    start: () => deps.accounts.start(),
    stop: () => deps.accounts.stop(),
  };
}

/** Whether the pod names a secret anywhere (podutil.VisitPodSecretNames over every container). */
function referencesSecrets(spec: Obj): boolean {
  if (list(spec, 'imagePullSecrets').length) return true;
  for (const v of list(spec, 'volumes')) {
    if (isObject(v['secret'])) return true;
    const projected = isObject(v['projected']) ? v['projected'] : undefined;
    if (projected && list(projected, 'sources').some((s) => isObject(s['secret']))) return true;
    for (const source of Object.values(v)) if (isObject(source) && isObject(source['secretRef'])) return true;
  }
  for (const field of ['initContainers', 'containers', 'ephemeralContainers']) {
    for (const c of list(spec, field)) {
      if (list(c, 'envFrom').some((e) => isObject(e['secretRef']))) return true;
      if (list(c, 'env').some((e) => isObject(e['valueFrom']) && isObject(e['valueFrom']['secretKeyRef']))) return true;
    }
  }
  return false;
}

export type ServiceAccountPlugin = ReturnType<typeof createServiceAccountPlugin>;
