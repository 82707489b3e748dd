/** Real kubectl 1.32 against the Node host: the pod defaults kube-apiserver's default admission plugins write. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost();
});
afterAll(async () => {
  await t?.stop();
});

describe('kubectl run and the default admission plugins', () => {
  it('kubectl run: get -o yaml shows serviceAccountName default and the kube-api-access projected volume mounted in the container', async () => {
    expect((await t.kubectl(['run', 'p', '--image=nginx'])).stdout).toBe('pod/p created\n');
    const yaml = (await t.kubectl(['get', 'pod', 'p', '-o', 'yaml'])).stdout;
    expect(yaml).toMatch(/\n  serviceAccount: default\n  serviceAccountName: default\n/);
    const name = /\n    - mountPath: \/var\/run\/secrets\/kubernetes\.io\/serviceaccount\n      name: (kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5})\n      readOnly: true\n/.exec(yaml)?.[1];
    expect(name, yaml).toBeDefined();
    expect(yaml).toContain(`  - name: ${name}
    projected:
      defaultMode: 420
      sources:
      - serviceAccountToken:
          expirationSeconds: 3607
          path: token
      - configMap:
          items:
          - key: ca.crt
            path: ca.crt
          name: kube-root-ca.crt
      - downwardAPI:
          items:
          - fieldRef:
              apiVersion: v1
              fieldPath: metadata.namespace
            path: namespace
`);
    expect(yaml).toMatch(/\n  preemptionPolicy: PreemptLowerPriority\n  priority: 0\n/);
    const described = (await t.kubectl(['describe', 'pod', 'p'])).stdout;
    expect(described).toMatch(/\nService Account:\s+default\n/);
    expect(described).toMatch(new RegExp(`\\n  ${name}:\\n    Type:\\s+Projected \\(a volume that contains injected data from multiple sources\\)\\n    TokenExpirationSeconds:\\s+3607\\n    ConfigMapName:\\s+kube-root-ca.crt\\n`));
    expect(yaml).toContain('  tolerations:\n  - effect: NoExecute\n    key: node.kubernetes.io/not-ready\n    operator: Exists\n    tolerationSeconds: 300\n  - effect: NoExecute\n    key: node.kubernetes.io/unreachable\n    operator: Exists\n    tolerationSeconds: 300\n');
  });

  it('kubectl run --overrides naming a missing ServiceAccount is Forbidden with kube\'s message', async () => {
    const r = await t.kubectl(['run', 'q', '--image=nginx', '--overrides={"spec":{"serviceAccountName":"builder"}}']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('Error from server (Forbidden): pods "q" is forbidden: error looking up service account default/builder: serviceaccount "builder" not found\n');
  });

  it('an unknown priorityClassName is Forbidden; system-node-critical exists', async () => {
    const r = await t.kubectl(['run', 'r', '--image=nginx', '--overrides={"spec":{"priorityClassName":"gold"}}']);
    expect(r.stderr).toBe('Error from server (Forbidden): pods "r" is forbidden: no PriorityClass with name gold was found\n');
    expect((await t.kubectl(['get', 'priorityclass', 'system-node-critical', '-o', 'jsonpath={.value}'])).stdout).toBe('2000001000');
  });
});

describe('--disable-admission-plugins', () => {
  it('ServiceAccount,Priority,DefaultTolerationSeconds disabled: the pod is stored as sent', async () => {
    const off = await startTestHost({ flags: { disableAdmissionPlugins: ['ServiceAccount', 'Priority', 'DefaultTolerationSeconds'] } });
    try {
      expect((await off.kubectl(['run', 'p', '--image=nginx', '--overrides={"spec":{"serviceAccountName":"nobody"}}'])).stdout).toBe('pod/p created\n');
      const spec = JSON.parse((await off.kubectl(['get', 'pod', 'p', '-o', 'jsonpath={.spec}'])).stdout);
      expect(spec.serviceAccountName).toBe('nobody');
      expect(spec.volumes).toBeUndefined();
      expect(spec.priority).toBeUndefined();
      expect(spec.tolerations).toBeUndefined();
    } finally {
      await off.stop();
    }
  });
});

describe('claims and the storage plugins', () => {
  it('a claim gets the default StorageClass and the pvc-protection finalizer; kubectl delete returns once the controller lets it go', async () => {
    const sc = 'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: standard\n  annotations:\n    storageclass.kubernetes.io/is-default-class: "true"\nprovisioner: example.com/disk\n';
    expect((await t.kubectl(['apply', '-f', '-'], sc)).stdout).toBe('storageclass.storage.k8s.io/standard created\n');
    const pvc = 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\nspec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: 1Gi\n';
    expect((await t.kubectl(['apply', '-f', '-'], pvc)).stdout).toBe('persistentvolumeclaim/data created\n');
    expect((await t.kubectl(['get', 'pvc', 'data', '-o', 'jsonpath={.spec.storageClassName} {.metadata.finalizers}'])).stdout).toBe('standard ["kubernetes.io/pvc-protection"]');
    const d = await t.kubectl(['delete', 'pvc', 'data']);
    expect(d.stdout).toBe('persistentvolumeclaim "data" deleted\n');
    expect((await t.kubectl(['get', 'pvc', 'data'])).stderr).toBe('Error from server (NotFound): persistentvolumeclaims "data" not found\n');
  });
});
