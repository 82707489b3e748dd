/**
 * Objects in their JSON form as kube-apiserver serves them, shared by the codec
 * tests and the benchmark. Each one contains only values Go's JSON encoder would
 * print, so a protobuf round trip must give them back unchanged.
 */

export const namespace = {
  kind: 'Namespace',
  apiVersion: 'v1',
  metadata: {
    name: 'team-a',
    uid: '6a1f4a52-7c8e-4d8e-9a43-2f1c0e5b7d10',
    resourceVersion: '812',
    creationTimestamp: '2024-01-02T03:04:05Z',
    labels: { 'kubernetes.io/metadata.name': 'team-a' },
    managedFields: [
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'v1',
        time: '2024-01-02T03:04:05Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/metadata.name': {} } } },
      },
    ],
  },
  spec: { finalizers: ['kubernetes'] },
  status: { phase: 'Active' },
};

export const configMap = {
  kind: 'ConfigMap',
  apiVersion: 'v1',
  metadata: { name: 'settings', namespace: 'default', creationTimestamp: '2024-01-02T03:04:05Z' },
  data: { 'app.properties': 'color=blue\nsize=10\n', empty: '' },
  binaryData: { 'logo.png': 'iVBORw0KGgo=', zero: '' },
  immutable: false,
};

export const secret = {
  kind: 'Secret',
  apiVersion: 'v1',
  metadata: { name: 'db', namespace: 'default', annotations: { owner: 'team-a' } },
  data: { password: 'czNjcjN0', username: 'YWRtaW4=' },
  type: 'Opaque',
};

export const deployment = {
  kind: 'Deployment',
  apiVersion: 'apps/v1',
  metadata: {
    name: 'web',
    namespace: 'default',
    uid: '0b8f1a7e-1111-4c3b-8f55-5d6a9e0c2a11',
    resourceVersion: '1234',
    generation: 2,
    creationTimestamp: '2024-01-02T03:04:05Z',
    labels: { app: 'web' },
    annotations: { 'deployment.kubernetes.io/revision': '1' },
  },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { creationTimestamp: null, labels: { app: 'web' } },
      spec: {
        containers: [
          {
            name: 'nginx',
            image: 'nginx:1.25',
            ports: [{ containerPort: 80, protocol: 'TCP' }],
            resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '250m', memory: '64Mi' } },
            livenessProbe: {
              httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' },
              initialDelaySeconds: 5,
              timeoutSeconds: 1,
              periodSeconds: 10,
              successThreshold: 1,
              failureThreshold: 3,
            },
            terminationMessagePath: '/dev/termination-log',
            terminationMessagePolicy: 'File',
            imagePullPolicy: 'IfNotPresent',
          },
        ],
        restartPolicy: 'Always',
        terminationGracePeriodSeconds: 30,
        dnsPolicy: 'ClusterFirst',
        securityContext: {},
        schedulerName: 'default-scheduler',
      },
    },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: '25%' } },
    revisionHistoryLimit: 10,
    progressDeadlineSeconds: 600,
  },
  status: {
    observedGeneration: 2,
    replicas: 3,
    updatedReplicas: 3,
    readyReplicas: 3,
    availableReplicas: 3,
    conditions: [
      {
        type: 'Available',
        status: 'True',
        lastUpdateTime: '2024-01-02T03:05:00Z',
        lastTransitionTime: '2024-01-02T03:05:00Z',
        reason: 'MinimumReplicasAvailable',
        message: 'Deployment has minimum availability.',
      },
    ],
  },
};

export const pod = {
  kind: 'Pod',
  apiVersion: 'v1',
  metadata: {
    name: 'web-7d4b9c6f5-x2x9k',
    generateName: 'web-7d4b9c6f5-',
    namespace: 'default',
    uid: '3c2c1d7e-2222-4a1b-9c0d-1e2f3a4b5c6d',
    resourceVersion: '1301',
    creationTimestamp: '2024-01-02T03:04:06Z',
    labels: { app: 'web', 'pod-template-hash': '7d4b9c6f5' },
    ownerReferences: [
      {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        name: 'web-7d4b9c6f5',
        uid: '9a8b7c6d-3333-4e5f-8a9b-0c1d2e3f4a5b',
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
  },
  spec: {
    volumes: [
      {
        name: 'kube-api-access-abcde',
        projected: {
          sources: [
            { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
            { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
            {
              downwardAPI: {
                items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }],
              },
            },
          ],
          defaultMode: 420,
        },
      },
      { name: 'cache', emptyDir: { sizeLimit: '1Gi' } },
    ],
    containers: [
      {
        name: 'nginx',
        image: 'nginx:1.25',
        command: ['nginx', '-g', 'daemon off;'],
        ports: [{ name: 'http', containerPort: 80, protocol: 'TCP' }],
        env: [
          { name: 'MODE', value: 'production' },
          { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
        ],
        resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '250m', memory: '64Mi' } },
        volumeMounts: [
          { name: 'kube-api-access-abcde', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' },
        ],
        readinessProbe: {
          tcpSocket: { port: 80 },
          timeoutSeconds: 1,
          periodSeconds: 10,
          successThreshold: 1,
          failureThreshold: 3,
        },
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
        imagePullPolicy: 'IfNotPresent',
        securityContext: { capabilities: { drop: ['ALL'] }, runAsNonRoot: true, allowPrivilegeEscalation: false },
      },
    ],
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    serviceAccountName: 'default',
    serviceAccount: 'default',
    automountServiceAccountToken: false,
    nodeName: 'node-1',
    securityContext: { runAsUser: 0, supplementalGroups: [1000, 2000] },
    schedulerName: 'default-scheduler',
    tolerations: [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ],
    priority: 0,
    enableServiceLinks: true,
    preemptionPolicy: 'PreemptLowerPriority',
  },
  status: {
    phase: 'Running',
    conditions: [
      { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2024-01-02T03:04:06Z' },
      { type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '2024-01-02T03:04:09Z' },
    ],
    hostIP: '10.0.0.11',
    hostIPs: [{ ip: '10.0.0.11' }],
    podIP: '10.244.1.7',
    podIPs: [{ ip: '10.244.1.7' }, { ip: 'fd00::7' }],
    startTime: '2024-01-02T03:04:06Z',
    containerStatuses: [
      {
        name: 'nginx',
        state: { running: { startedAt: '2024-01-02T03:04:08Z' } },
        lastState: {},
        ready: true,
        restartCount: 0,
        image: 'docker.io/library/nginx:1.25',
        imageID: 'docker.io/library/nginx@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31',
        containerID: 'containerd://4f5e6d7c8b9a',
        started: true,
      },
    ],
    qosClass: 'Burstable',
  },
};

export const selfSubjectAccessReview = {
  kind: 'SelfSubjectAccessReview',
  apiVersion: 'authorization.k8s.io/v1',
  metadata: { creationTimestamp: null },
  spec: { resourceAttributes: { namespace: 'default', verb: 'create', resource: 'pods' } },
  status: { allowed: true, reason: 'RBAC: allowed by RoleBinding "edit/default" of ClusterRole "edit" to User "alice"' },
};

export const selfSubjectRulesReview = {
  kind: 'SelfSubjectRulesReview',
  apiVersion: 'authorization.k8s.io/v1',
  metadata: { creationTimestamp: null },
  spec: { namespace: 'default' },
  status: {
    resourceRules: [
      { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
      { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods', 'pods/log'], resourceNames: ['web'] },
    ],
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/version'] }],
    incomplete: false,
  },
};

export const selfSubjectReview = {
  kind: 'SelfSubjectReview',
  apiVersion: 'authentication.k8s.io/v1',
  metadata: { creationTimestamp: null },
  status: {
    userInfo: {
      username: 'alice',
      uid: 'alice-uid',
      groups: ['devs', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/credential-id': ['JTI=abc'], scopes: ['a', 'b'] },
    },
  },
};

export const notFoundStatus = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'pods "x" not found',
  reason: 'NotFound',
  details: { name: 'x', kind: 'pods' },
  code: 404,
};

export const podList = {
  kind: 'PodList',
  apiVersion: 'v1',
  metadata: { resourceVersion: '1400', continue: 'eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ', remainingItemCount: 7 },
  // List items carry no kind or apiVersion, in JSON as in protobuf.
  items: [
    (({ kind: _k, apiVersion: _a, ...rest }) => rest)(pod),
    { metadata: { name: 'solo', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'busybox' }] }, status: {} },
  ],
};
