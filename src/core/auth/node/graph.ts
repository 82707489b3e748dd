/**
 * What a Pod makes reachable for its node (plugin/pkg/auth/authorizer/node/graph_populator.go):
 * the Secrets, ConfigMaps, PersistentVolumeClaims and ServiceAccount it
 * references. Computed from the Pod objects at check time rather than kept
 * as a graph: the answer is the same, and nothing has to be kept in sync.
 */
import { isObject, type KubeObject } from '../../api/types';

export interface PodReferences {
  secrets: Set<string>;
  configMaps: Set<string>;
  pvcs: Set<string>;
  serviceAccounts: Set<string>;
}

type Json = Record<string, unknown>;
const arr = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : []);
const obj = (v: unknown): Json | undefined => (isObject(v) ? v : undefined);
const name = (v: unknown, key = 'name'): string | undefined => {
  const o = obj(v);
  const n = o?.[key];
  return typeof n === 'string' && n ? n : undefined;
};

/** Volume sources that carry a secretRef (flexVolume, cephfs, iscsi, rbd, scaleIO, storageos, cinder, csi). */
const secretRefSources = ['flexVolume', 'cephfs', 'iscsi', 'rbd', 'scaleIO', 'storageos', 'cinder'];

export function podReferences(pod: KubeObject): PodReferences {
  const refs: PodReferences = { secrets: new Set(), configMaps: new Set(), pvcs: new Set(), serviceAccounts: new Set() };
  const add = (set: Set<string>, n: string | undefined) => n && set.add(n);
  const spec = obj(pod['spec']) ?? {};
  add(refs.serviceAccounts, typeof spec['serviceAccountName'] === 'string' ? spec['serviceAccountName'] : undefined);
  for (const s of arr(spec['imagePullSecrets'])) add(refs.secrets, name(s));
  for (const c of [...arr(spec['containers']), ...arr(spec['initContainers']), ...arr(spec['ephemeralContainers'])]) {
    for (const e of arr(c['env'])) {
      const from = obj(e['valueFrom']);
      add(refs.secrets, name(from?.['secretKeyRef']));
      add(refs.configMaps, name(from?.['configMapKeyRef']));
    }
    for (const e of arr(c['envFrom'])) {
      add(refs.secrets, name(e['secretRef']));
      add(refs.configMaps, name(e['configMapRef']));
    }
  }
  for (const v of arr(spec['volumes'])) {
    add(refs.secrets, name(v['secret'], 'secretName'));
    add(refs.configMaps, name(v['configMap']));
    add(refs.secrets, name(v['azureFile'], 'secretName'));
    add(refs.secrets, name(obj(v['csi'])?.['nodePublishSecretRef']));
    for (const src of secretRefSources) add(refs.secrets, name(obj(v[src])?.['secretRef']));
    for (const p of arr(obj(v['projected'])?.['sources'])) {
      add(refs.secrets, name(p['secret']));
      add(refs.configMaps, name(p['configMap']));
    }
    add(refs.pvcs, name(v['persistentVolumeClaim'], 'claimName'));
    // A generic ephemeral volume's claim is named <pod>-<volume>.
    if (v['ephemeral'] && typeof v['name'] === 'string') add(refs.pvcs, `${pod.metadata.name}-${v['name']}`);
  }
  return refs;
}
