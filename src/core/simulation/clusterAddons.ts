/**
 * The add-ons `kubeadm init` installs (its upload-config and addon phases),
 * as kind's clusters have them: CoreDNS (the coredns Deployment behind the
 * kube-dns Service at the cluster DNS address, with its ConfigMap, account
 * and RBAC) and kube-proxy (a DaemonSet on every node, with its ConfigMap
 * and account), and kubeadm's record of the cluster, `kubeadm-config`.
 *
 * kubeadm installs them once: kubeadm-config, written last, says it has run,
 * so what a user changes or deletes afterwards stays so across restarts. The
 * controllers run them like any workload: the Deployment's pods are
 * scheduled and get pod IPs, the DaemonSet's run on the host network.
 */
import type { KubeObject } from '../api/types';
import { StatusError } from '../errors';
import type { NamespaceControllerDeps } from '../controllers/namespace';
import { clusterDnsIP, clusterDomain } from './clusterDns';

/** kubeadm's default repository and the CoreDNS release its constants pair with this Kubernetes version. */
const imageRepository = 'registry.k8s.io';
export const coreDnsImage = `${imageRepository}/coredns/coredns:v1.12.1`;
export const kubeProxyImage = (kubernetesVersion: string) => `${imageRepository}/kube-proxy:v${kubernetesVersion.replace(/^v/, '')}`;

const podSubnet = '10.244.0.0/16';
/** What kubeadm's ClusterConfiguration names the cluster's service range (kind's, inside kube-apiserver's /12). */
const serviceSubnet = '10.96.0.0/16';
/** The control plane as the add-ons' kubeconfigs reach it. */
const controlPlaneEndpoint = 'kubesim-control-plane:6443';

/** kubeadm's field manager: client-go names a client's writes after its program. */
const manager = 'kubeadm';

const configMap = (namespace: string, name: string, data: Record<string, string>, labels?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, ...(labels ? { labels } : {}) },
  data,
});

const serviceAccount = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: 'kube-system' } });

const rbac = 'rbac.authorization.k8s.io';
/** A ClusterRole, or a Role of kube-system. */
const role = (kind: 'ClusterRole' | 'Role', name: string, rules: Record<string, unknown>[]): KubeObject => ({
  apiVersion: `${rbac}/v1`,
  kind,
  metadata: { name, ...(kind === 'Role' ? { namespace: 'kube-system' } : {}) },
  rules,
});
/** A ClusterRoleBinding, or a RoleBinding of kube-system, of a role of the same scope to its subjects. */
const binding = (kind: 'ClusterRoleBinding' | 'RoleBinding', name: string, roleName: string, subjects: Record<string, unknown>[]): KubeObject => ({
  apiVersion: `${rbac}/v1`,
  kind,
  metadata: { name, ...(kind === 'RoleBinding' ? { namespace: 'kube-system' } : {}) },
  roleRef: { apiGroup: rbac, kind: kind === 'RoleBinding' ? 'Role' : 'ClusterRole', name: roleName },
  subjects,
});
const account = (name: string) => ({ kind: 'ServiceAccount', name, namespace: 'kube-system' });

/** kubeadm's ClusterConfiguration, as `kubeadm init` uploads it. */
export function clusterConfiguration(kubernetesVersion: string): string {
  return [
    'apiServer: {}',
    'apiVersion: kubeadm.k8s.io/v1beta4',
    'caCertificateValidityPeriod: 87600h0m0s',
    'certificateValidityPeriod: 8760h0m0s',
    'certificatesDir: /etc/kubernetes/pki',
    'clusterName: kubesim',
    `controlPlaneEndpoint: ${controlPlaneEndpoint}`,
    'controllerManager: {}',
    'dns: {}',
    'encryptionAlgorithm: RSA-2048',
    'etcd:',
    '  local:',
    '    dataDir: /var/lib/etcd',
    `imageRepository: ${imageRepository}`,
    'kind: ClusterConfiguration',
    `kubernetesVersion: v${kubernetesVersion.replace(/^v/, '')}`,
    'networking:',
    `  dnsDomain: ${clusterDomain}`,
    `  podSubnet: ${podSubnet}`,
    `  serviceSubnet: ${serviceSubnet}`,
    'proxy: {}',
    'scheduler: {}',
    '',
  ].join('\n');
}

/** kubeadm's Corefile: the cluster zone from the API, everything else forwarded to the node's resolver. */
export const corefile = `.:53 {
    errors
    health {
       lameduck 5s
    }
    ready
    kubernetes ${clusterDomain} in-addr.arpa ip6.arpa {
       pods insecure
       fallthrough in-addr.arpa ip6.arpa
       ttl 30
    }
    prometheus :9153
    forward . /etc/resolv.conf {
       max_concurrent 1000
    }
    cache 30 {
       disable success ${clusterDomain}
       disable denial ${clusterDomain}
    }
    loop
    reload
    loadbalance
}
`;

/** The CoreDNS add-on: its account and RBAC, its Corefile, the Deployment and the kube-dns Service. */
export function coreDnsObjects(): KubeObject[] {
  const labels = { 'k8s-app': 'kube-dns' };
  return [
    serviceAccount('coredns'),
    role('ClusterRole', 'system:coredns', [
      { apiGroups: [''], resources: ['endpoints', 'services', 'pods', 'namespaces'], verbs: ['list', 'watch'] },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
    ]),
    binding('ClusterRoleBinding', 'system:coredns', 'system:coredns', [account('coredns')]),
    configMap('kube-system', 'coredns', { Corefile: corefile }),
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'coredns', namespace: 'kube-system', labels },
      spec: {
        replicas: 2,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            priorityClassName: 'system-cluster-critical',
            serviceAccountName: 'coredns',
            affinity: {
              podAntiAffinity: {
                preferredDuringSchedulingIgnoredDuringExecution: [
                  { weight: 100, podAffinityTerm: { labelSelector: { matchExpressions: [{ key: 'k8s-app', operator: 'In', values: ['kube-dns'] }] }, topologyKey: 'kubernetes.io/hostname' } },
                ],
              },
            },
            tolerations: [
              { key: 'CriticalAddonsOnly', operator: 'Exists' },
              { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
            ],
            nodeSelector: { 'kubernetes.io/os': 'linux' },
            containers: [
              {
                name: 'coredns',
                image: coreDnsImage,
                imagePullPolicy: 'IfNotPresent',
                resources: { limits: { memory: '170Mi' }, requests: { cpu: '100m', memory: '70Mi' } },
                args: ['-conf', '/etc/coredns/Corefile'],
                volumeMounts: [{ name: 'config-volume', mountPath: '/etc/coredns', readOnly: true }],
                ports: [
                  { containerPort: 53, name: 'dns', protocol: 'UDP' },
                  { containerPort: 53, name: 'dns-tcp', protocol: 'TCP' },
                  { containerPort: 9153, name: 'metrics', protocol: 'TCP' },
                  { containerPort: 8080, name: 'liveness-probe', protocol: 'TCP' },
                  { containerPort: 8181, name: 'readiness-probe', protocol: 'TCP' },
                ],
                livenessProbe: { httpGet: { path: '/health', port: 'liveness-probe', scheme: 'HTTP' }, initialDelaySeconds: 60, timeoutSeconds: 5, successThreshold: 1, failureThreshold: 5 },
                readinessProbe: { httpGet: { path: '/ready', port: 'readiness-probe', scheme: 'HTTP' } },
                securityContext: { allowPrivilegeEscalation: false, capabilities: { add: ['NET_BIND_SERVICE'], drop: ['ALL'] }, readOnlyRootFilesystem: true },
              },
            ],
            // CoreDNS resolves what is outside the cluster through the node's resolver, not through itself.
            dnsPolicy: 'Default',
            volumes: [{ name: 'config-volume', configMap: { name: 'coredns', items: [{ key: 'Corefile', path: 'Corefile' }] } }],
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'kube-dns',
        namespace: 'kube-system',
        labels: { ...labels, 'kubernetes.io/cluster-service': 'true', 'kubernetes.io/name': 'CoreDNS' },
        annotations: { 'prometheus.io/port': '9153', 'prometheus.io/scrape': 'true' },
      },
      spec: {
        clusterIP: clusterDnsIP,
        ports: [
          { name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 },
          { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 },
          { name: 'metrics', port: 9153, protocol: 'TCP', targetPort: 9153 },
        ],
        selector: labels,
      },
    },
  ];
}

/** kubeadm's KubeProxyConfiguration: iptables mode over the cluster's pod range. */
function kubeProxyConfiguration(): string {
  return [
    'apiVersion: kubeproxy.config.k8s.io/v1alpha1',
    'bindAddress: 0.0.0.0',
    'bindAddressHardFail: false',
    'clientConnection:',
    '  acceptContentTypes: ""',
    '  burst: 0',
    '  contentType: ""',
    '  kubeconfig: /var/lib/kube-proxy/kubeconfig.conf',
    '  qps: 0',
    `clusterCIDR: ${podSubnet}`,
    'configSyncPeriod: 0s',
    'conntrack:',
    '  maxPerCore: 0',
    '  min: null',
    '  tcpCloseWaitTimeout: null',
    '  tcpEstablishedTimeout: null',
    'detectLocalMode: ""',
    'enableProfiling: false',
    'healthzBindAddress: ""',
    'hostnameOverride: ""',
    'iptables:',
    '  localhostNodePorts: null',
    '  masqueradeAll: false',
    '  masqueradeBit: null',
    '  minSyncPeriod: 1s',
    '  syncPeriod: 0s',
    'kind: KubeProxyConfiguration',
    'metricsBindAddress: ""',
    'mode: iptables',
    'nodePortAddresses: null',
    'oomScoreAdj: null',
    'portRange: ""',
    'showHiddenMetricsForProbes: ""',
    'winkernel:',
    '  enableDSR: false',
    '  forwardHealthCheckVip: false',
    '  networkName: ""',
    '  rootHnsEndpointName: ""',
    '  sourceVip: ""',
  ].join('\n');
}

const kubeProxyKubeconfig = [
  'apiVersion: v1',
  'kind: Config',
  'clusters:',
  '- cluster:',
  '    certificate-authority: /var/run/secrets/kubernetes.io/serviceaccount/ca.crt',
  `    server: https://${controlPlaneEndpoint}`,
  '  name: default',
  'contexts:',
  '- context:',
  '    cluster: default',
  '    namespace: default',
  '    user: default',
  '  name: default',
  'current-context: default',
  'users:',
  '- name: default',
  '  user:',
  '    tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token',
].join('\n');

/** The kube-proxy add-on: its account (bound to system:node-proxier), its configuration and the DaemonSet. */
export function kubeProxyObjects(kubernetesVersion: string): KubeObject[] {
  const labels = { 'k8s-app': 'kube-proxy' };
  return [
    serviceAccount('kube-proxy'),
    binding('ClusterRoleBinding', 'kubeadm:node-proxier', 'system:node-proxier', [account('kube-proxy')]),
    role('Role', 'kube-proxy', [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['kube-proxy'], verbs: ['get'] }]),
    binding('RoleBinding', 'kube-proxy', 'kube-proxy', [{ kind: 'Group', name: 'system:bootstrappers:kubeadm:default-node-token' }]),
    configMap('kube-system', 'kube-proxy', { 'config.conf': kubeProxyConfiguration(), 'kubeconfig.conf': kubeProxyKubeconfig }, { app: 'kube-proxy' }),
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'kube-proxy', namespace: 'kube-system', labels },
      spec: {
        selector: { matchLabels: labels },
        updateStrategy: { type: 'RollingUpdate' },
        template: {
          metadata: { labels },
          spec: {
            priorityClassName: 'system-node-critical',
            containers: [
              {
                name: 'kube-proxy',
                image: kubeProxyImage(kubernetesVersion),
                imagePullPolicy: 'IfNotPresent',
                command: ['/usr/local/bin/kube-proxy', '--config=/var/lib/kube-proxy/config.conf', '--hostname-override=$(NODE_NAME)'],
                securityContext: { privileged: true },
                volumeMounts: [
                  { mountPath: '/var/lib/kube-proxy', name: 'kube-proxy' },
                  { mountPath: '/run/xtables.lock', name: 'xtables-lock' },
                  { mountPath: '/lib/modules', name: 'lib-modules', readOnly: true },
                ],
                env: [{ name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
              },
            ],
            hostNetwork: true,
            serviceAccountName: 'kube-proxy',
            volumes: [
              { name: 'kube-proxy', configMap: { name: 'kube-proxy' } },
              { name: 'xtables-lock', hostPath: { path: '/run/xtables.lock', type: 'FileOrCreate' } },
              { name: 'lib-modules', hostPath: { path: '/lib/modules' } },
            ],
            tolerations: [{ operator: 'Exists' }],
            nodeSelector: { 'kubernetes.io/os': 'linux' },
          },
        },
      },
    },
  ];
}

/** The group, version and plural of each add-on object's kind. */
const resources: Record<string, [group: string, version: string, resource: string]> = {
  ConfigMap: ['', 'v1', 'configmaps'],
  ServiceAccount: ['', 'v1', 'serviceaccounts'],
  Service: ['', 'v1', 'services'],
  ClusterRole: ['rbac.authorization.k8s.io', 'v1', 'clusterroles'],
  ClusterRoleBinding: ['rbac.authorization.k8s.io', 'v1', 'clusterrolebindings'],
  Role: ['rbac.authorization.k8s.io', 'v1', 'roles'],
  RoleBinding: ['rbac.authorization.k8s.io', 'v1', 'rolebindings'],
  Deployment: ['apps', 'v1', 'deployments'],
  DaemonSet: ['apps', 'v1', 'daemonsets'],
};

/**
 * Installs the add-ons unless kubeadm-config says they were installed: each object created as kubeadm
 * (one that exists already is kept), kubeadm-config last, so an install cut short is finished on the next start.
 */
export async function installClusterAddons(deps: NamespaceControllerDeps, kubernetesVersion: string): Promise<void> {
  const store = (kind: string) => {
    const [group, version, resource] = resources[kind]!;
    return deps.storeFor(deps.registry.resourceFor(group, version, resource)!).asManager(manager);
  };
  if (await store('ConfigMap').getKv('kube-system', 'kubeadm-config')) return;
  const objects = [...coreDnsObjects(), ...kubeProxyObjects(kubernetesVersion), configMap('kube-system', 'kubeadm-config', { ClusterConfiguration: clusterConfiguration(kubernetesVersion) })];
  for (const obj of objects) {
    try {
      await store(obj.kind).create(obj.metadata.namespace ?? '', obj);
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 409)) console.error(`kubesim: kubeadm's ${obj.kind} ${obj.metadata.name}:`, e);
    }
  }
}
