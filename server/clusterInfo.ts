/**
 * kubeadm's bootstrap-token phase, done by the host when the bootstrapsigner
 * runs: ConfigMap kube-public/cluster-info holds a kubeconfig with the
 * server and its CA (the bootstrapsigner signs it), and a Role and
 * RoleBinding let system:anonymous read it, so a joining client can fetch
 * it before it has credentials.
 */
import type { ApiServer } from '../src/core';

function clusterInfoKubeconfig(server: string, caCert: string | undefined): string {
  const ca = caCert ? `    certificate-authority-data: ${Buffer.from(caCert).toString('base64')}\n` : '';
  return `apiVersion: v1\nclusters:\n- cluster:\n${ca}    server: ${server}\n  name: ""\ncontexts: null\ncurrent-context: ""\nkind: Config\npreferences: {}\nusers: null\n`;
}

async function ensure(api: ApiServer, token: string | undefined, path: string, obj: Record<string, unknown>): Promise<void> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers['authorization'] = `Bearer ${token}`;
  const res = await api.handle(new Request(`http://127.0.0.1${path}`, { method: 'POST', headers, body: JSON.stringify(obj) }));
  if (res.status !== 201 && res.status !== 409) throw new Error(`creating ${path}: ${res.status} ${await res.text()}`);
}

export async function publishClusterInfo(api: ApiServer, server: string, caCert: string | undefined, adminToken: string | undefined): Promise<void> {
  await ensure(api, adminToken, '/api/v1/namespaces/kube-public/configmaps', {
    apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-info', namespace: 'kube-public' }, data: { kubeconfig: clusterInfoKubeconfig(server, caCert) },
  });
  await ensure(api, adminToken, '/apis/rbac.authorization.k8s.io/v1/namespaces/kube-public/roles', {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'kubeadm:bootstrap-signer-clusterinfo', namespace: 'kube-public' },
    rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['cluster-info'], verbs: ['get'] }],
  });
  await ensure(api, adminToken, '/apis/rbac.authorization.k8s.io/v1/namespaces/kube-public/rolebindings', {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'kubeadm:bootstrap-signer-clusterinfo', namespace: 'kube-public' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'kubeadm:bootstrap-signer-clusterinfo' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'system:anonymous' }],
  });
}
