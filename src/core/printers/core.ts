/**
 * Core-group kinds other than pods: services, endpoints, config maps,
 * secrets, namespaces, nodes, service accounts, events (core and
 * events.k8s.io), persistent volumes and claims, resource quotas and
 * component statuses.
 */

import { ageColumn, column, doc, nameColumn, wide } from './columns';
import { parseTimestamp, timestampSince } from './duration';
import {
  accessModesString,
  arr,
  compareStrings,
  field,
  formatLabels,
  joinHostPort,
  num,
  record,
  str,
} from './format';
import { formatQuantity } from './quantity';
import type { KubeObject, Printer } from './types';

const name = (obj: KubeObject): string => str(obj.metadata?.name);
const age = (obj: KubeObject, now: Date): string => timestampSince(obj.metadata?.creationTimestamp, now);
const deleting = (obj: KubeObject): boolean => parseTimestamp(obj.metadata?.deletionTimestamp) !== undefined;

/** Unique load-balancer IPs (or hostnames), sorted; the server prints them unclipped (wide). */
export function loadBalancerIngresses(status: unknown): string {
  const result = new Set<string>();
  for (const ingress of arr(field(status, 'ingress'))) {
    const ip = str(field(ingress, 'ip'));
    const hostname = str(field(ingress, 'hostname'));
    if (ip !== '') result.add(ip);
    else if (hostname !== '') result.add(hostname);
  }
  return [...result].sort(compareStrings).join(',');
}

function serviceExternalIP(svc: KubeObject, type: string): string {
  const externalIPs = arr<string>(field(svc, 'spec', 'externalIPs'));
  switch (type) {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length > 0 ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const lbIPs = loadBalancerIngresses(field(svc, 'status', 'loadBalancer'));
      if (externalIPs.length > 0) return [...(lbIPs ? lbIPs.split(',') : []), ...externalIPs].join(',');
      return lbIPs !== '' ? lbIPs : '<pending>';
    }
    case 'ExternalName':
      return str(field(svc, 'spec', 'externalName'));
    default:
      return '<unknown>';
  }
}

function servicePorts(ports: unknown): string {
  return arr(ports)
    .map((p) => {
      // protocol is defaulted to TCP on create.
      const protocol = str(field(p, 'protocol')) || 'TCP';
      const port = num(field(p, 'port'));
      const nodePort = num(field(p, 'nodePort'));
      return nodePort > 0 ? `${port}:${nodePort}/${protocol}` : `${port}/${protocol}`;
    })
    .join(',');
}

export const servicePrinter: Printer = {
  columns: [
    nameColumn(),
    column('Type', 'string', doc('core.v1.ServiceSpec.type')),
    column('Cluster-IP', 'string', doc('core.v1.ServiceSpec.clusterIP')),
    column('External-IP', 'string', doc('core.v1.ServiceSpec.externalIPs')),
    column('Port(s)', 'string', doc('core.v1.ServiceSpec.ports')),
    ageColumn(),
    wide('Selector', 'string', doc('core.v1.ServiceSpec.selector')),
  ],
  row(obj, { now }) {
    // type is defaulted to ClusterIP on create.
    const type = str(field(obj, 'spec', 'type')) || 'ClusterIP';
    const clusterIPs = arr<string>(field(obj, 'spec', 'clusterIPs'));
    const clusterIP = clusterIPs[0] ?? (str(field(obj, 'spec', 'clusterIP')) || '<none>');
    const ports = servicePorts(field(obj, 'spec', 'ports')) || '<none>';
    return {
      cells: [
        name(obj),
        type,
        clusterIP,
        serviceExternalIP(obj, type),
        ports,
        age(obj, now),
        formatLabels(field(obj, 'spec', 'selector')),
      ],
    };
  },
};

/** formatEndpoints: up to three ip:port pairs, then "+ N more...". */
function formatEndpoints(subsets: unknown): string {
  const list = arr(subsets);
  if (list.length === 0) return '<none>';
  const max = 3;
  const out: string[] = [];
  let more = false;
  let count = 0;
  for (const subset of list) {
    const addresses = arr(field(subset, 'addresses'));
    const ports = arr(field(subset, 'ports'));
    if (ports.length === 0) {
      // Headless services may have no ports.
      count += addresses.length;
      for (const address of addresses) {
        if (out.length === max) {
          more = true;
          break;
        }
        out.push(str(field(address, 'ip')));
      }
      continue;
    }
    for (const port of ports) {
      count += addresses.length;
      for (const address of addresses) {
        if (out.length === max) {
          more = true;
          break;
        }
        out.push(joinHostPort(str(field(address, 'ip')), num(field(port, 'port'))));
      }
    }
  }
  const joined = out.join(',');
  return more ? `${joined} + ${count - max} more...` : joined;
}

export const endpointsPrinter: Printer = {
  columns: [nameColumn(), column('Endpoints', 'string', doc('core.v1.Endpoints.subsets')), ageColumn()],
  row(obj, { now }) {
    return { cells: [name(obj), formatEndpoints(obj.subsets), age(obj, now)] };
  },
};

export const configMapPrinter: Printer = {
  columns: [nameColumn(), column('Data', 'string', doc('core.v1.ConfigMap.data')), ageColumn()],
  row(obj, { now }) {
    const count = Object.keys(record(obj.data)).length + Object.keys(record(obj.binaryData)).length;
    return { cells: [name(obj), count, age(obj, now)] };
  },
};

export const secretPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Type', 'string', doc('core.v1.Secret.type')),
    column('Data', 'string', doc('core.v1.Secret.data')),
    ageColumn(),
  ],
  row(obj, { now }) {
    return { cells: [name(obj), str(obj.type), Object.keys(record(obj.data)).length, age(obj, now)] };
  },
};

export const namespacePrinter: Printer = {
  columns: [nameColumn(), column('Status', 'string', 'The status of the namespace'), ageColumn()],
  row(obj, { now }) {
    return { cells: [name(obj), str(field(obj, 'status', 'phase')), age(obj, now)] };
  },
};

export const serviceAccountPrinter: Printer = {
  columns: [nameColumn(), column('Secrets', 'string', doc('core.v1.ServiceAccount.secrets')), ageColumn()],
  row(obj, { now }) {
    return { cells: [name(obj), arr(obj.secrets).length, age(obj, now)] };
  },
};

const NODE_ROLE_PREFIX = 'node-role.kubernetes.io/';
const NODE_ROLE_LABEL = 'kubernetes.io/role';

/** Roles from node-role.kubernetes.io/<role> keys and the kubernetes.io/role value, sorted. */
function nodeRoles(labels: unknown): string[] {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(record(labels))) {
    if (key.startsWith(NODE_ROLE_PREFIX)) {
      const role = key.slice(NODE_ROLE_PREFIX.length);
      if (role !== '') roles.add(role);
    } else if (key === NODE_ROLE_LABEL && str(value) !== '') {
      roles.add(str(value));
    }
  }
  return [...roles].sort(compareStrings);
}

function nodeAddress(obj: KubeObject, type: string): string {
  const address = arr(field(obj, 'status', 'addresses')).find((a) => field(a, 'type') === type);
  return address === undefined ? '<none>' : str(field(address, 'address'));
}

export const nodePrinter: Printer = {
  columns: [
    nameColumn(),
    column('Status', 'string', 'The status of the node'),
    column('Roles', 'string', 'The roles of the node'),
    ageColumn(),
    column('Version', 'string', doc('core.v1.NodeSystemInfo.kubeletVersion')),
    wide('Internal-IP', 'string', doc('core.v1.NodeStatus.addresses')),
    wide('External-IP', 'string', doc('core.v1.NodeStatus.addresses')),
    wide('OS-Image', 'string', doc('core.v1.NodeSystemInfo.osImage')),
    wide('Kernel-Version', 'string', doc('core.v1.NodeSystemInfo.kernelVersion')),
    wide('Container-Runtime', 'string', doc('core.v1.NodeSystemInfo.containerRuntimeVersion')),
  ],
  row(obj, { now }) {
    // Only the Ready condition is reported; the last condition of that type wins.
    let ready: string | undefined;
    for (const condition of arr(field(obj, 'status', 'conditions'))) {
      if (field(condition, 'type') === 'Ready') ready = field(condition, 'status') === 'True' ? 'Ready' : 'NotReady';
    }
    const status = [ready ?? 'Unknown'];
    if (field(obj, 'spec', 'unschedulable') === true) status.push('SchedulingDisabled');
    const info = field(obj, 'status', 'nodeInfo');
    return {
      cells: [
        name(obj),
        status.join(','),
        nodeRoles(obj.metadata?.labels).join(',') || '<none>',
        age(obj, now),
        str(field(info, 'kubeletVersion')),
        nodeAddress(obj, 'InternalIP'),
        nodeAddress(obj, 'ExternalIP'),
        str(field(info, 'osImage')) || '<unknown>',
        str(field(info, 'kernelVersion')) || '<unknown>',
        str(field(info, 'containerRuntimeVersion')) || '<unknown>',
      ],
    };
  },
};

/** An events.k8s.io/v1 Event read as the core/v1 fields the printer uses. */
function asCoreEvent(obj: KubeObject, group: string): KubeObject {
  if (group !== 'events.k8s.io') return obj;
  return {
    ...obj,
    involvedObject: obj.regarding,
    message: obj.note,
    source: obj.deprecatedSource,
    firstTimestamp: obj.deprecatedFirstTimestamp,
    lastTimestamp: obj.deprecatedLastTimestamp,
    count: obj.deprecatedCount,
    reportingComponent: obj.reportingController,
  };
}

function eventSource(obj: KubeObject): string {
  const component = str(field(obj, 'source', 'component')) || str(obj.reportingComponent);
  const host = str(field(obj, 'source', 'host')) || str(obj.reportingInstance);
  return host === '' ? component : `${component}, ${host}`;
}

function eventPrinter(group: string): Printer {
  return {
    columns: [
      column('Last Seen', 'string', doc('core.v1.Event.lastTimestamp')),
      column('Type', 'string', doc('core.v1.Event.type')),
      column('Reason', 'string', doc('core.v1.Event.reason')),
      column('Object', 'string', doc('core.v1.Event.involvedObject')),
      wide('Subobject', 'string', doc('core.v1.ObjectReference.fieldPath')),
      wide('Source', 'string', doc('core.v1.Event.source')),
      column('Message', 'string', doc('core.v1.Event.message')),
      wide('First Seen', 'string', doc('core.v1.Event.firstTimestamp')),
      wide('Count', 'string', doc('core.v1.Event.count')),
      column('Name', 'string', doc('meta.v1.ObjectMeta.name'), { priority: 1, format: 'name' }),
    ],
    row(original, { now }) {
      const obj = asCoreEvent(original, group);
      // Events from the new API carry eventTime and series instead of the legacy timestamps.
      const firstTimestamp =
        parseTimestamp(obj.firstTimestamp) === undefined
          ? timestampSince(obj.eventTime, now)
          : timestampSince(obj.firstTimestamp, now);
      let lastTimestamp =
        parseTimestamp(obj.lastTimestamp) === undefined ? firstTimestamp : timestampSince(obj.lastTimestamp, now);
      let count = num(obj.count);
      if (obj.series !== undefined && obj.series !== null) {
        lastTimestamp = timestampSince(field(obj.series, 'lastObservedTime'), now);
        count = num(field(obj.series, 'count'));
      } else if (count === 0) {
        count = 1;
      }
      const kind = str(field(obj, 'involvedObject', 'kind')).toLowerCase();
      const involvedName = str(field(obj, 'involvedObject', 'name'));
      return {
        cells: [
          lastTimestamp,
          str(obj.type),
          str(obj.reason),
          involvedName === '' ? kind : `${kind}/${involvedName}`,
          str(field(obj, 'involvedObject', 'fieldPath')),
          eventSource(obj),
          str(obj.message).trim(),
          firstTimestamp,
          count,
          name(obj),
        ],
      };
    },
  };
}

export const coreEventPrinter = eventPrinter('');
export const eventsV1Printer = eventPrinter('events.k8s.io');

const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

/** The beta annotation still wins over spec.storageClassName, as in kube's helpers. */
function storageClassOf(obj: KubeObject): string {
  const annotation = obj.metadata?.annotations?.[BETA_STORAGE_CLASS_ANNOTATION];
  if (annotation !== undefined) return annotation;
  return str(field(obj, 'spec', 'storageClassName'));
}

function optionalString(value: unknown): string {
  return typeof value === 'string' ? value : '<unset>';
}

export const persistentVolumePrinter: Printer = {
  columns: [
    nameColumn(),
    column('Capacity', 'string', doc('core.v1.PersistentVolumeSpec.capacity')),
    column('Access Modes', 'string', doc('core.v1.PersistentVolumeSpec.accessModes')),
    column('Reclaim Policy', 'string', doc('core.v1.PersistentVolumeSpec.persistentVolumeReclaimPolicy')),
    column('Status', 'string', doc('core.v1.PersistentVolumeStatus.phase')),
    column('Claim', 'string', doc('core.v1.PersistentVolumeSpec.claimRef')),
    column('StorageClass', 'string', 'StorageClass of the pv'),
    column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pv'),
    column('Reason', 'string', doc('core.v1.PersistentVolumeStatus.reason')),
    ageColumn(),
    wide('VolumeMode', 'string', doc('core.v1.PersistentVolumeSpec.volumeMode')),
  ],
  row(obj, { now }) {
    const spec = field(obj, 'spec');
    const claimRef = field(spec, 'claimRef');
    const claim =
      claimRef === undefined || claimRef === null
        ? ''
        : `${str(field(claimRef, 'namespace'))}/${str(field(claimRef, 'name'))}`;
    return {
      cells: [
        name(obj),
        formatQuantity(field(spec, 'capacity', 'storage')),
        accessModesString(field(spec, 'accessModes')),
        str(field(spec, 'persistentVolumeReclaimPolicy')),
        deleting(obj) ? 'Terminating' : str(field(obj, 'status', 'phase')),
        claim,
        storageClassOf(obj),
        optionalString(field(spec, 'volumeAttributesClassName')),
        str(field(obj, 'status', 'reason')),
        age(obj, now),
        optionalString(field(spec, 'volumeMode')),
      ],
    };
  },
};

export const persistentVolumeClaimPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Status', 'string', doc('core.v1.PersistentVolumeClaimStatus.phase')),
    column('Volume', 'string', doc('core.v1.PersistentVolumeClaimSpec.volumeName')),
    column('Capacity', 'string', doc('core.v1.PersistentVolumeClaimStatus.capacity')),
    column('Access Modes', 'string', doc('core.v1.PersistentVolumeClaimStatus.accessModes')),
    column('StorageClass', 'string', 'StorageClass of the pvc'),
    column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pvc'),
    ageColumn(),
    wide('VolumeMode', 'string', doc('core.v1.PersistentVolumeClaimSpec.volumeMode')),
  ],
  row(obj, { now }) {
    const spec = field(obj, 'spec');
    const volumeName = str(field(spec, 'volumeName'));
    // Capacity and access modes are shown only once the claim is bound to a volume.
    const bound = volumeName !== '';
    return {
      cells: [
        name(obj),
        deleting(obj) ? 'Terminating' : str(field(obj, 'status', 'phase')),
        volumeName,
        bound ? formatQuantity(field(obj, 'status', 'capacity', 'storage')) : '',
        bound ? accessModesString(field(obj, 'status', 'accessModes')) : '',
        storageClassOf(obj),
        optionalString(field(spec, 'volumeAttributesClassName')),
        age(obj, now),
        optionalString(field(spec, 'volumeMode')),
      ],
    };
  },
};

export const resourceQuotaPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Request', 'string', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
    column(
      'Limit',
      'string',
      'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.',
    ),
    ageColumn(),
  ],
  row(obj, { now }) {
    const hard = record(field(obj, 'status', 'hard'));
    const used = record(field(obj, 'status', 'used'));
    const requests: string[] = [];
    const limits: string[] = [];
    for (const resource of Object.keys(hard).sort(compareStrings)) {
      const entry = `${resource}: ${formatQuantity(used[resource])}/${formatQuantity(hard[resource])}`;
      const pieces = resource.split('.');
      (pieces.length > 1 && pieces[0] === 'limits' ? limits : requests).push(entry);
    }
    return { cells: [name(obj), requests.join(', '), limits.join(', '), age(obj, now)] };
  },
};

export const componentStatusPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Status', 'string', 'Status of the component conditions'),
    column('Message', 'string', 'Message of the component conditions'),
    column('Error', 'string', 'Error of the component conditions'),
  ],
  row(obj) {
    const healthy = arr(obj.conditions).find((c) => field(c, 'type') === 'Healthy');
    if (healthy === undefined) return { cells: [name(obj), 'Unknown', '', ''] };
    return {
      cells: [
        name(obj),
        field(healthy, 'status') === 'True' ? 'Healthy' : 'Unhealthy',
        str(field(healthy, 'message')),
        str(field(healthy, 'error')),
      ],
    };
  },
};
