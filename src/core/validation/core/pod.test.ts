/**
 * Pod and pod template validation as tables (object -> expected causes), in
 * the manner of kube's validation_test.go; each case runs on the defaulted
 * object, as kube-apiserver validates after defaulting.
 */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../api/types';
import { fieldErrorString } from '../../errors';
import { defaultPodSpec } from '../../registry/core/podSpec';
import { validatePod, validatePodUpdate } from './pod';

type Spec = Record<string, unknown>;
const container = (extra: Spec = {}): Spec => ({ name: 'c', image: 'nginx', ...extra });
const pod = (spec: Spec): KubeObject => {
  const p: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: structuredClone(spec) };
  defaultPodSpec(p['spec']);
  return p;
};
const causes = (p: KubeObject) => validatePod(p).map(fieldErrorString);
const dns1123 = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

describe('ValidatePodCreate', () => {
  const valid: [string, Spec][] = [
    ['one container', { containers: [container()] }],
    ['ports, env, probes, mounts, resources', {
      volumes: [{ name: 'data', emptyDir: {} }, { name: 'cfg', configMap: { name: 'cm' } }],
      containers: [container({
        ports: [{ name: 'http', containerPort: 80 }],
        env: [{ name: 'A', value: 'b' }, { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }, { name: 'weird.name-1', value: 'x' }],
        envFrom: [{ configMapRef: { name: 'cm' } }],
        livenessProbe: { httpGet: { port: 'http' } },
        readinessProbe: { tcpSocket: { port: 80 } },
        volumeMounts: [{ name: 'data', mountPath: '/data' }, { name: 'cfg', mountPath: '/cfg', subPath: 'a/b' }],
        resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '1', memory: '1024Mi', 'example.com/gpu': '1' } },
      })],
      initContainers: [container({ name: 'init' }), container({ name: 'sidecar', restartPolicy: 'Always', readinessProbe: { exec: { command: ['true'] } } })],
      tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }, { operator: 'Exists' }],
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } } },
      hostname: 'web-0',
      subdomain: 'web',
      restartPolicy: 'OnFailure',
      dnsPolicy: 'None',
      dnsConfig: { nameservers: ['1.1.1.1'] },
    }],
    // SetDefaults_Volume makes a volume naming no source an emptyDir before validation sees it.
    ['a volume with no source, mounted', { volumes: [{ name: 'data' }], containers: [container({ volumeMounts: [{ name: 'data', mountPath: '/data' }] })] }],
  ];
  for (const [name, spec] of valid) {
    it(`API-ERR-022: accepts ${name}`, () => expect(causes(pod(spec))).toEqual([]));
  }

  const invalid: [string, Spec, string[]][] = [
    ['no containers', { containers: [] }, ['spec.containers: Required value']],
    ['invalid container name and no image: every error', { containers: [{ name: 'Bad_Name' }] }, [
      `spec.containers[0].name: Invalid value: "Bad_Name": ${dns1123}`,
      'spec.containers[0].image: Required value',
    ]],
    ['two containers of the same name', { containers: [container(), container()] }, ['spec.containers[1].name: Duplicate value: "c"']],
    ['restartPolicy Sometimes', { restartPolicy: 'Sometimes', containers: [container()] }, [
      'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
    ]],
    ['dnsPolicy Maybe', { dnsPolicy: 'Maybe', containers: [container()] }, [
      'spec.dnsPolicy: Unsupported value: "Maybe": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
    ]],
    ['container port 99999', { containers: [container({ ports: [{ containerPort: 99999 }] })] }, [
      'spec.containers[0].ports[0].containerPort: Invalid value: 99999: must be between 1 and 65535, inclusive',
    ]],
    ['port without containerPort, bad protocol and name', { containers: [container({ ports: [{ name: 'HTTP', protocol: 'ICMP' }] })] }, [
      'spec.containers[0].ports[0].name: Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'spec.containers[0].ports[0].containerPort: Required value',
      'spec.containers[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
    ]],
    ['cpu requests above limits', { containers: [container({ resources: { requests: { cpu: '2' }, limits: { cpu: '1500m' } } })] }, [
      'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1500m',
    ]],
    ['memory requests above limits (canonical quantities)', { containers: [container({ resources: { requests: { memory: '1.5Gi' }, limits: { memory: '1G' } } })] }, [
      'spec.containers[0].resources.requests: Invalid value: "1536Mi": must be less than or equal to memory limit of 1G',
    ]],
    ['negative quantity and unknown resource', { containers: [container({ resources: { limits: { cpu: '-1', cpus: '1' } } })] }, [
      'spec.containers[0].resources.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0',
      'spec.containers[0].resources.limits[cpus]: Invalid value: "cpus": must be a standard resource type or fully qualified',
      'spec.containers[0].resources.limits[cpus]: Invalid value: "cpus": must be a standard resource for containers',
    ]],
    ['extended resource request without limit', { containers: [container({ resources: { requests: { 'example.com/gpu': '1' } } })] }, [
      'spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources',
    ]],
    ['a volumeMount naming no volume', { containers: [container({ volumeMounts: [{ name: 'data', mountPath: '/data' }] })] }, [
      'spec.containers[0].volumeMounts[0].name: Not found: "data"',
    ]],
    ['duplicate volumes, two sources, missing claim name', {
      volumes: [{ name: 'a', emptyDir: {}, hostPath: { path: '/x' } }, { name: 'a', emptyDir: {} }, { name: 'b', persistentVolumeClaim: {} }],
      containers: [container()],
    }, [
      // The first "a" is invalid, so it is not remembered and the second is no duplicate (as kube's).
      'spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type',
      'spec.volumes[2].persistentVolumeClaim.claimName: Required value',
    ]],
    ['mount paths: duplicate, subPath escaping', { volumes: [{ name: 'v', emptyDir: {} }], containers: [container({ volumeMounts: [{ name: 'v', mountPath: '/a' }, { name: 'v', mountPath: '/a', subPath: '../x' }] })] }, [
      'spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/a": must be unique',
      `spec.containers[0].volumeMounts.subPath: Invalid value: "../x": must not contain '..'`,
    ]],
    ['env: empty name, invalid valueFrom', { containers: [container({ env: [{ value: 'x' }, { name: 'A=B' }, { name: 'C', value: 'v', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }, { name: 'D', valueFrom: {} }, { name: 'E', valueFrom: { fieldRef: { fieldPath: 'spec.foo' } } }] })] }, [
      'spec.containers[0].env[0].name: Required value',
      "spec.containers[0].env[1].name: Invalid value: \"A=B\": a valid environment variable name must consist only of printable ASCII characters other than '='",
      'spec.containers[0].env[2].valueFrom: Invalid value: "": may not be specified when `value` is not empty',
      'spec.containers[0].env[3].valueFrom: Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
      'spec.containers[0].env[4].valueFrom.fieldRef.fieldPath: Invalid value: "spec.foo": error converting fieldPath: field label not supported: spec.foo',
    ]],
    ['envFrom without a source', { containers: [container({ envFrom: [{ prefix: 'P_' }] })] }, [
      'spec.containers[0].envFrom: Invalid value: "": must specify one of: `configMapRef` or `secretRef`',
    ]],
    ['probes: no handler, liveness successThreshold 2, two handlers', { containers: [container({
      livenessProbe: { successThreshold: 2, exec: { command: ['x'] } },
      readinessProbe: {},
      startupProbe: { exec: { command: ['x'] }, tcpSocket: { port: 80 } },
    })] }, [
      'spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1',
      'spec.containers[0].readinessProbe: Required value: must specify a handler type',
      'spec.containers[0].startupProbe.tcpSocket: Forbidden: may not specify more than 1 handler type',
    ]],
    ['probe port out of range and negative period', { containers: [container({ readinessProbe: { httpGet: { port: 0 }, periodSeconds: -1 } })] }, [
      'spec.containers[0].readinessProbe.httpGet.port: Invalid value: 0: must be between 1 and 65535, inclusive',
      'spec.containers[0].readinessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0',
    ]],
    ['lifecycle hook without handler', { containers: [container({ lifecycle: { preStop: {} } })] }, [
      'spec.containers[0].lifecycle.preStop: Required value: must specify a handler type',
    ]],
    ['imagePullPolicy Sometimes', { containers: [container({ imagePullPolicy: 'Sometimes' })] }, [
      'spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
    ]],
    ['init container with a probe and a name taken by a container', { containers: [container()], initContainers: [container({ livenessProbe: { exec: { command: ['x'] } } })] }, [
      'spec.initContainers[0].name: Duplicate value: "c"',
      'spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always',
    ]],
    ['restartPolicy on a regular container', { containers: [container({ restartPolicy: 'Always' })] }, [
      'spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers',
    ]],
    ['duplicate host ports', { containers: [container({ ports: [{ containerPort: 80, hostPort: 8080 }] }), container({ name: 'd', ports: [{ containerPort: 81, hostPort: 8080 }] })] }, [
      'spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"',
    ]],
    ['hostname, subdomain, activeDeadlineSeconds', { hostname: 'Web', subdomain: 'a.b', activeDeadlineSeconds: 0, containers: [container()] }, [
      'spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive',
      `spec.hostname: Invalid value: "Web": ${dns1123}`,
      `spec.subdomain: Invalid value: "a.b": ${dns1123}`,
    ]],
    ['tolerations', { containers: [container()], tolerations: [{ key: 'k', operator: 'Exists', value: 'v' }, { operator: 'Equal', value: 'x' }, { key: 'k', operator: 'Maybe', effect: 'Never' }, { key: 'k', tolerationSeconds: 5, effect: 'NoSchedule' }] }, [
      `spec.tolerations[0].operator: Invalid value: core.Toleration{Key:"k", Operator:"Exists", Value:"v", Effect:"", TolerationSeconds:(*int64)(nil)}: value must be empty when \`operator\` is 'Exists'`,
      'spec.tolerations[1].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
      'spec.tolerations[2].operator: Unsupported value: "Maybe": supported values: "Equal", "Exists"',
      'spec.tolerations[2].effect: Unsupported value: "Never": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
      "spec.tolerations[3].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set",
    ]],
    ['node affinity without terms and with a bad operator', { containers: [container()], affinity: {
      nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] }, preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 0, preference: { matchExpressions: [{ key: 'k', operator: 'Is' }] } }] },
      podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { a: 'b' } } }] },
    } }, [
      'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term',
      'spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100',
      'spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].operator: Invalid value: "Is": not a valid selector operator',
      'spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty',
    ]],
    ['dnsPolicy None without dnsConfig', { dnsPolicy: 'None', containers: [container()] }, [
      'spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None',
    ]],
    ['securityContext ids out of range', { securityContext: { runAsUser: -1 }, containers: [container({ securityContext: { runAsGroup: -2, seccompProfile: { type: 'Custom' } } })] }, [
      'spec.containers[0].securityContext.runAsGroup: Invalid value: -2: must be between 0 and 2147483647, inclusive',
      'spec.containers[0].securityContext.seccompProfile.type: Unsupported value: "Custom": supported values: "Localhost", "RuntimeDefault", "Unconfined"',
      'spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive',
    ]],
    ['ephemeral containers on create', { containers: [container()], ephemeralContainers: [container({ name: 'debug' })] }, [
      'spec.ephemeralContainers: Forbidden: cannot be set on create',
    ]],
    ['runtimeClassName, readinessGates, schedulingGates, resizePolicy', {
      runtimeClassName: 'Fast', readinessGates: [{ conditionType: 'a/b/c' }], schedulingGates: [{ name: 'g' }, { name: 'g' }], restartPolicy: 'Never',
      containers: [container({ resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'RestartContainer' }, { resourceName: 'gpu', restartPolicy: 'NotRequired' }] })],
    }, [
      'spec.containers[0].resizePolicy: Invalid value: "RestartContainer": must be \'NotRequired\' when `restartPolicy` is \'Never\'',
      'spec.containers[0].resizePolicy: Unsupported value: "gpu": supported values: "cpu", "memory"',
      "spec.runtimeClassName: Invalid value: \"Fast\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      "spec.readinessGates[0].conditionType: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      'spec.schedulingGates[1]: Duplicate value: "g"',
    ]],
    ['image with surrounding whitespace', { containers: [container({ image: ' nginx' })] }, [
      'spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace',
    ]],
  ];
  for (const [name, spec, want] of invalid) {
    it(`API-ERR-022: rejects ${name}`, () => expect(causes(pod(spec))).toEqual(want));
  }
});

describe('ValidatePodUpdate', () => {
  const old = pod({ containers: [container()], tolerations: [{ key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }], activeDeadlineSeconds: 100 });
  const update = (change: (spec: Spec) => void) => {
    const next = structuredClone(old);
    change(next['spec'] as Spec);
    defaultPodSpec(next['spec']);
    return validatePodUpdate(next, old).map(fieldErrorString);
  };
  const first = (spec: Spec) => (spec['containers'] as Spec[])[0]!;
  it('allows the image, a shorter activeDeadlineSeconds, new tolerations and changed tolerationSeconds', () => {
    expect(update((s) => {
      first(s)['image'] = 'nginx:2';
      s['activeDeadlineSeconds'] = 50;
      s['tolerations'] = [{ key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 20 }, { key: 'b', operator: 'Exists' }];
    })).toEqual([]);
  });
  it('forbids other spec changes, with kube\'s message', () => {
    const errs = update((s) => { s['nodeName'] = 'n1'; });
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(/^spec: Forbidden: pod updates may not change fields other than `spec\.containers\[\*\]\.image`,`spec\.initContainers\[\*\]\.image`,`spec\.activeDeadlineSeconds`,`spec\.tolerations` \(only additions to existing tolerations\),`spec\.terminationGracePeriodSeconds` \(allow it to be set to 1 if it was previously negative\)\n/);
  });
  it('forbids adding a container and removing a toleration, and a longer activeDeadlineSeconds', () => {
    expect(update((s) => { (s['containers'] as Spec[]).push(container({ name: 'd' })); })).toEqual(['spec.containers: Forbidden: pod updates may not add or remove containers']);
    expect(update((s) => { s['tolerations'] = []; })).toEqual(['spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds']);
    expect(update((s) => { s['activeDeadlineSeconds'] = 200; })).toEqual(['spec.activeDeadlineSeconds: Invalid value: 200: must be less than or equal to previous value']);
    expect(update((s) => { delete s['activeDeadlineSeconds']; })).toEqual(['spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive integer to nil value']);
  });
  it('still requires an image', () => {
    expect(update((s) => { first(s)['image'] = ''; })).toEqual(['spec.containers[0].image: Required value', 'spec.containers[0].image: Required value']);
  });
});
