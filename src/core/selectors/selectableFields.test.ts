import { describe, expect, it } from 'vitest';
import type { FieldSelector } from './fieldSelector';
import { fieldsForObject, supportedFieldLabels, validateFieldSelector, type SelectableFieldOptions } from './selectableFields';
import { SelectorError } from './selectorError';

describe('fieldsForObject', () => {
  const cases: { name: string; group: string; resource: string; obj: unknown; want: Record<string, string> }[] = [
    {
      name: 'configmaps carry only metadata fields',
      group: '',
      resource: 'configmaps',
      obj: { metadata: { name: 'cm1', namespace: 'ns1' }, data: { a: 'b' } },
      want: { 'metadata.name': 'cm1', 'metadata.namespace': 'ns1' },
    },
    {
      name: 'cluster-scoped objects read an empty namespace',
      group: 'rbac.authorization.k8s.io',
      resource: 'clusterroles',
      obj: { metadata: { name: 'view' } },
      want: { 'metadata.name': 'view', 'metadata.namespace': '' },
    },
    {
      name: 'pods',
      group: '',
      resource: 'pods',
      obj: {
        metadata: { name: 'p', namespace: 'ns1' },
        spec: { nodeName: 'n1', restartPolicy: 'Always', schedulerName: 'default-scheduler', serviceAccountName: 'sa', hostNetwork: true },
        status: { phase: 'Running', podIP: '10.0.0.9', podIPs: [{ ip: '10.0.0.1' }, { ip: 'fd00::1' }], nominatedNodeName: 'n2' },
      },
      want: {
        'metadata.name': 'p',
        'metadata.namespace': 'ns1',
        'spec.nodeName': 'n1',
        'spec.restartPolicy': 'Always',
        'spec.schedulerName': 'default-scheduler',
        'spec.serviceAccountName': 'sa',
        'spec.hostNetwork': 'true',
        'status.phase': 'Running',
        'status.podIP': '10.0.0.1',
        'status.nominatedNodeName': 'n2',
      },
    },
    {
      name: 'pods with nothing set default to empty and hostNetwork false',
      group: '',
      resource: 'pods',
      obj: { metadata: { name: 'p', namespace: 'ns1' } },
      want: {
        'metadata.name': 'p',
        'metadata.namespace': 'ns1',
        'spec.nodeName': '',
        'spec.restartPolicy': '',
        'spec.schedulerName': '',
        'spec.serviceAccountName': '',
        'spec.hostNetwork': 'false',
        'status.phase': '',
        'status.podIP': '',
        'status.nominatedNodeName': '',
      },
    },
    {
      name: 'nodes',
      group: '',
      resource: 'nodes',
      obj: { metadata: { name: 'n1' }, spec: { unschedulable: true } },
      want: { 'metadata.name': 'n1', 'metadata.namespace': '', 'spec.unschedulable': 'true' },
    },
    {
      name: 'secrets',
      group: '',
      resource: 'secrets',
      obj: { metadata: { name: 's', namespace: 'ns1' }, type: 'kubernetes.io/service-account-token' },
      want: { 'metadata.name': 's', 'metadata.namespace': 'ns1', type: 'kubernetes.io/service-account-token' },
    },
    {
      name: 'namespaces',
      group: '',
      resource: 'namespaces',
      obj: { metadata: { name: 'ns1' }, status: { phase: 'Terminating' } },
      want: { 'metadata.name': 'ns1', 'metadata.namespace': '', 'status.phase': 'Terminating' },
    },
    {
      name: 'services',
      group: '',
      resource: 'services',
      obj: { metadata: { name: 'svc', namespace: 'ns1' }, spec: { clusterIP: '10.96.0.1', type: 'ClusterIP' } },
      want: { 'metadata.name': 'svc', 'metadata.namespace': 'ns1', 'spec.clusterIP': '10.96.0.1', 'spec.type': 'ClusterIP' },
    },
    {
      name: 'replicationcontrollers default replicas to 0',
      group: '',
      resource: 'replicationcontrollers',
      obj: { metadata: { name: 'rc', namespace: 'ns1' } },
      want: { 'metadata.name': 'rc', 'metadata.namespace': 'ns1', 'status.replicas': '0' },
    },
    {
      name: 'replicasets',
      group: 'apps',
      resource: 'replicasets',
      obj: { metadata: { name: 'rs', namespace: 'ns1' }, status: { replicas: 3 } },
      want: { 'metadata.name': 'rs', 'metadata.namespace': 'ns1', 'status.replicas': '3' },
    },
    {
      name: 'jobs expose succeeded as status.successful',
      group: 'batch',
      resource: 'jobs',
      obj: { metadata: { name: 'j', namespace: 'ns1' }, status: { succeeded: 2 } },
      want: { 'metadata.name': 'j', 'metadata.namespace': 'ns1', 'status.successful': '2' },
    },
    {
      name: 'certificatesigningrequests',
      group: 'certificates.k8s.io',
      resource: 'certificatesigningrequests',
      obj: { metadata: { name: 'csr' }, spec: { signerName: 'kubernetes.io/kube-apiserver-client' } },
      want: { 'metadata.name': 'csr', 'metadata.namespace': '', 'spec.signerName': 'kubernetes.io/kube-apiserver-client' },
    },
    {
      name: 'core events fall back to reportingController for source',
      group: '',
      resource: 'events',
      obj: {
        metadata: { name: 'e', namespace: 'ns1' },
        involvedObject: { kind: 'Pod', namespace: 'ns1', name: 'p', uid: 'u1', apiVersion: 'v1', resourceVersion: '7', fieldPath: 'spec.containers{c}' },
        reason: 'Started',
        reportingController: 'kubelet',
        type: 'Normal',
      },
      want: {
        'metadata.name': 'e',
        'metadata.namespace': 'ns1',
        'involvedObject.kind': 'Pod',
        'involvedObject.namespace': 'ns1',
        'involvedObject.name': 'p',
        'involvedObject.uid': 'u1',
        'involvedObject.apiVersion': 'v1',
        'involvedObject.resourceVersion': '7',
        'involvedObject.fieldPath': 'spec.containers{c}',
        reason: 'Started',
        reportingComponent: 'kubelet',
        source: 'kubelet',
        type: 'Normal',
      },
    },
    {
      name: 'events.k8s.io events use the core field names',
      group: 'events.k8s.io',
      resource: 'events',
      obj: {
        metadata: { name: 'e', namespace: 'ns1' },
        regarding: { kind: 'Pod', name: 'p' },
        reason: 'Pulled',
        reportingController: 'kubelet',
        deprecatedSource: { component: 'old-kubelet' },
        type: 'Warning',
      },
      want: {
        'metadata.name': 'e',
        'metadata.namespace': 'ns1',
        'involvedObject.kind': 'Pod',
        'involvedObject.namespace': '',
        'involvedObject.name': 'p',
        'involvedObject.uid': '',
        'involvedObject.apiVersion': '',
        'involvedObject.resourceVersion': '',
        'involvedObject.fieldPath': '',
        reason: 'Pulled',
        reportingComponent: 'kubelet',
        source: 'old-kubelet',
        type: 'Warning',
      },
    },
    {
      name: 'resourceslices',
      group: 'resource.k8s.io',
      resource: 'resourceslices',
      obj: { metadata: { name: 'rs1' }, spec: { nodeName: 'n1', driver: 'gpu.example.com' } },
      want: { 'metadata.name': 'rs1', 'metadata.namespace': '', 'spec.nodeName': 'n1', 'spec.driver': 'gpu.example.com' },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(fieldsForObject(c.group, c.resource, c.obj)).toEqual(c.want);
    });
  }

  it('custom resources add their selectable fields, formatted like upstream', () => {
    const obj = { metadata: { name: 'w', namespace: 'ns1' }, spec: { color: 'red', size: 3, enabled: false } };
    const fields = fieldsForObject('example.com', 'widgets', obj, {
      customResource: { namespaced: true, selectableFields: ['.spec.color', '.spec.size', 'spec.enabled', '.spec.missing'] },
    });
    expect(fields).toEqual({
      'metadata.name': 'w',
      'metadata.namespace': 'ns1',
      'spec.color': 'red',
      'spec.size': '3',
      'spec.enabled': 'false',
      'spec.missing': '',
    });
  });
});

describe('validateFieldSelector', () => {
  const ok: { name: string; group: string; resource: string; selector: string; converted: string; options?: SelectableFieldOptions }[] = [
    { name: 'metadata.name on configmaps', group: '', resource: 'configmaps', selector: 'metadata.name=cm1', converted: 'metadata.name=cm1' },
    { name: 'pods spec.nodeName', group: '', resource: 'pods', selector: 'spec.nodeName=n1,status.phase!=Running', converted: 'spec.nodeName=n1,status.phase!=Running' },
    { name: 'pods spec.host converts to spec.nodeName', group: '', resource: 'pods', selector: 'spec.host=n1', converted: 'spec.nodeName=n1' },
    { name: 'pods status.podIPs is accepted', group: '', resource: 'pods', selector: 'status.podIPs=10.0.0.1', converted: 'status.podIPs=10.0.0.1' },
    { name: 'events involvedObject', group: '', resource: 'events', selector: 'involvedObject.name=p,type=Warning', converted: 'involvedObject.name=p,type=Warning' },
    {
      name: 'events.k8s.io regarding converts to involvedObject',
      group: 'events.k8s.io',
      resource: 'events',
      selector: 'regarding.name=p,reportingController=kubelet',
      converted: 'involvedObject.name=p,reportingComponent=kubelet',
    },
    { name: 'secrets type', group: '', resource: 'secrets', selector: 'type=Opaque', converted: 'type=Opaque' },
    { name: 'services spec.type', group: '', resource: 'services', selector: 'spec.type=NodePort', converted: 'spec.type=NodePort' },
    { name: 'nodes spec.unschedulable', group: '', resource: 'nodes', selector: 'spec.unschedulable=false', converted: 'spec.unschedulable=false' },
    { name: 'namespaces status.phase', group: '', resource: 'namespaces', selector: 'status.phase=Active', converted: 'status.phase=Active' },
    { name: 'jobs status.successful', group: 'batch', resource: 'jobs', selector: 'status.successful=1', converted: 'status.successful=1' },
    { name: 'csr signerName', group: 'certificates.k8s.io', resource: 'certificatesigningrequests', selector: 'spec.signerName=x/y', converted: 'spec.signerName=x/y' },
    { name: 'default kinds accept metadata.namespace even cluster-scoped', group: 'rbac.authorization.k8s.io', resource: 'clusterroles', selector: 'metadata.namespace=', converted: 'metadata.namespace=' },
    {
      name: 'custom resource selectable field',
      group: 'example.com',
      resource: 'widgets',
      selector: 'spec.color=red',
      converted: 'spec.color=red',
      options: { customResource: { namespaced: true, selectableFields: ['.spec.color'] } },
    },
  ];
  for (const c of ok) {
    it(`accepts: ${c.name}`, () => {
      const sel = validateFieldSelector(c.group, c.resource, c.selector, c.options);
      expect(sel).not.toBeInstanceOf(SelectorError);
      expect((sel as FieldSelector).toString()).toBe(c.converted);
    });
  }

  const bad: { name: string; group: string; resource: string; selector: string; message: string; options?: SelectableFieldOptions }[] = [
    { name: 'unknown pod field', group: '', resource: 'pods', selector: 'foo=bar', message: 'field label not supported: foo' },
    {
      name: 'kinds without a conversion func use the default message',
      group: 'networking.k8s.io',
      resource: 'ingresses',
      selector: 'foo.bar=baz',
      message: '"foo.bar" is not a known field selector: only "metadata.name", "metadata.namespace"',
    },
    {
      name: 'replicasets reject status.replicas although their field set has it',
      group: 'apps',
      resource: 'replicasets',
      selector: 'status.replicas=1',
      message: '"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"',
    },
    { name: 'nodes reject metadata.namespace', group: '', resource: 'nodes', selector: 'metadata.namespace=x', message: 'field label not supported: metadata.namespace' },
    { name: 'namespaces reject metadata.namespace', group: '', resource: 'namespaces', selector: 'metadata.namespace=x', message: 'field label not supported: metadata.namespace' },
    { name: 'jobs use their own wording', group: 'batch', resource: 'jobs', selector: 'status.succeeded=1', message: 'field label "status.succeeded" not supported for batchv1.Job' },
    {
      name: 'events.k8s.io rejects the core names',
      group: 'events.k8s.io',
      resource: 'events',
      selector: 'involvedObject.name=p',
      message: 'field label not supported: involvedObject.name',
    },
    {
      name: 'resourceslices name their group version kind',
      group: 'resource.k8s.io',
      resource: 'resourceslices',
      selector: 'spec.pool=x',
      message: 'field label not supported for resource.k8s.io/v1beta1, Kind=ResourceSlice: spec.pool',
      options: { version: 'v1beta1' },
    },
    {
      name: 'cluster-scoped custom resources reject metadata.namespace',
      group: 'example.com',
      resource: 'clusterwidgets',
      selector: 'metadata.namespace=x',
      message: 'field label not supported: metadata.namespace',
      options: { customResource: { namespaced: false } },
    },
    { name: 'the first unsupported term in sorted order is reported', group: '', resource: 'pods', selector: 'zz=1,aa=2', message: 'field label not supported: aa' },
    { name: 'parse errors pass through', group: '', resource: 'pods', selector: 'spec.nodeName', message: "invalid selector: 'spec.nodeName'; can't understand 'spec.nodeName'" },
  ];
  for (const c of bad) {
    it(`rejects: ${c.name}`, () => {
      const sel = validateFieldSelector(c.group, c.resource, c.selector, c.options);
      expect(sel).toBeInstanceOf(SelectorError);
      expect((sel as SelectorError).message).toBe(c.message);
    });
  }

  it('a converted events.k8s.io selector matches the object fields', () => {
    const event = { metadata: { name: 'e', namespace: 'ns1' }, regarding: { kind: 'Pod', name: 'p' }, type: 'Normal' };
    const sel = validateFieldSelector('events.k8s.io', 'events', 'regarding.name=p,regarding.kind=Pod') as FieldSelector;
    expect(sel.matches(fieldsForObject('events.k8s.io', 'events', event))).toBe(true);
    const other = validateFieldSelector('events.k8s.io', 'events', 'regarding.name=q') as FieldSelector;
    expect(other.matches(fieldsForObject('events.k8s.io', 'events', event))).toBe(false);
  });

  it('supportedFieldLabels lists what a request may name', () => {
    expect(supportedFieldLabels('', 'nodes')).toEqual(['metadata.name', 'spec.unschedulable']);
    expect(supportedFieldLabels('', 'configmaps')).toEqual(['metadata.name', 'metadata.namespace']);
  });
});
