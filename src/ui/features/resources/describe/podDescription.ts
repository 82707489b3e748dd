/**
 * A Pod as `kubectl describe pod` words it: node and status (Terminating
 * while deleted), IPs, QoS class, conditions, and the containers in
 * describe's three groups, Init Containers (sidecars marked: restartPolicy
 * Always), Containers and Ephemeral Containers, each with its State, its
 * Last State when it last terminated, Ready and Restart Count. READY `n/m`
 * is `kubectl get pod`'s, sidecars counted as the pod printer counts them.
 */
import { qosClass } from '../../../../core/api/podQos';
import { arr, field, num, record, str } from '../../../../core/printers/format';
import { timestampSince } from '../../../../core/printers/duration';
import type { KubeObject as CoreObject } from '../../../../core/api/types';
import type { KubeObject } from '../../../api';
import { summarizePod } from '../../nodes/summary';
import { controlledBy, rfc1123z } from './metadata';

type Obj = Record<string, unknown>;

export interface StateDescription {
  /** describeStatus' word: a container with no state yet is Waiting. */
  state: 'Running' | 'Waiting' | 'Terminated';
  /** The indented lines under it, in describe's order: Reason, Message, Exit Code, Signal, Started, Finished. */
  details: [label: string, value: string][];
}

/** describeStatus for one ContainerState. */
export function describeState(state: unknown, offsetMinutes?: number): StateDescription {
  const s = record(state);
  if (s['running'] !== undefined) return { state: 'Running', details: [['Started', rfc1123z(field(s, 'running', 'startedAt'), offsetMinutes)]] };
  if (s['waiting'] !== undefined) {
    const reason = str(field(s, 'waiting', 'reason'));
    return { state: 'Waiting', details: reason ? [['Reason', reason]] : [] };
  }
  if (s['terminated'] !== undefined) {
    const t = record(s['terminated']);
    const details: [string, string][] = [];
    if (str(t['reason'])) details.push(['Reason', str(t['reason'])]);
    if (str(t['message'])) details.push(['Message', str(t['message'])]);
    details.push(['Exit Code', String(num(t['exitCode']))]);
    if (num(t['signal']) > 0) details.push(['Signal', String(num(t['signal']))]);
    details.push(['Started', rfc1123z(t['startedAt'], offsetMinutes)], ['Finished', rfc1123z(t['finishedAt'], offsetMinutes)]);
    return { state: 'Terminated', details };
  }
  return { state: 'Waiting', details: [] };
}

export interface ContainerDescription {
  name: string;
  image: string;
  /** An init container with restartPolicy Always: it keeps running beside the containers. */
  sidecar: boolean;
  /** The kubelet has reported on it; without a status describe prints only name and image. */
  status?: {
    containerID: string;
    state: StateDescription;
    /** Only when it last terminated, as describe prints it. */
    lastState?: StateDescription;
    ready: boolean;
    restartCount: number;
  };
}

export type ContainerGroupTitle = 'Init Containers' | 'Containers' | 'Ephemeral Containers';

export interface ContainerGroup {
  title: ContainerGroupTitle;
  containers: ContainerDescription[];
}

function describeContainers(specs: unknown, statuses: unknown, offsetMinutes?: number): ContainerDescription[] {
  const byName = new Map(arr<Obj>(statuses).map((s) => [str(record(s)['name']), record(s)]));
  return arr<Obj>(specs).map((spec) => {
    const c = record(spec);
    const name = str(c['name']);
    const status = byName.get(name);
    const terminatedBefore = field(status, 'lastState', 'terminated') !== undefined;
    return {
      name,
      image: str(c['image']),
      sidecar: c['restartPolicy'] === 'Always',
      ...(status && {
        status: {
          containerID: str(status['containerID']),
          state: describeState(status['state'], offsetMinutes),
          ...(terminatedBefore && { lastState: describeState(status['lastState'], offsetMinutes) }),
          ready: status['ready'] === true,
          restartCount: num(status['restartCount']),
        },
      }),
    };
  });
}

/** describe's container sections: Init Containers and Ephemeral Containers only when the pod has some; Containers always. */
export function containerGroups(pod: KubeObject, offsetMinutes?: number): ContainerGroup[] {
  const spec = record(pod['spec']);
  const status = record(pod['status']);
  const groups: ContainerGroup[] = [];
  if (arr(spec['initContainers']).length > 0) groups.push({ title: 'Init Containers', containers: describeContainers(spec['initContainers'], status['initContainerStatuses'], offsetMinutes) });
  groups.push({ title: 'Containers', containers: describeContainers(spec['containers'], status['containerStatuses'], offsetMinutes) });
  if (arr(spec['ephemeralContainers']).length > 0) groups.push({ title: 'Ephemeral Containers', containers: describeContainers(spec['ephemeralContainers'], status['ephemeralContainerStatuses'], offsetMinutes) });
  return groups;
}

export interface PodDescription {
  /** `node-1/10.0.0.1`, or `<none>` before the pod is bound. */
  node: string;
  startTime: string;
  /** The phase, or `Terminating (lasts 5s)` while it is deleted and not done. */
  status: string;
  reason: string;
  message: string;
  ip: string;
  ips: string[];
  controlledBy: string;
  nominatedNodeName: string;
  qosClass: string;
  /** `kubectl get pod` READY: ready containers (running sidecars included) / containers (sidecars included). */
  ready: string;
  /** `kubectl get pod` STATUS, e.g. CrashLoopBackOff, Init:0/1. */
  printedStatus: string;
  conditions: { type: string; status: string }[];
  groups: ContainerGroup[];
}

export function describePod(pod: KubeObject, now: Date, offsetMinutes?: number): PodDescription {
  const spec = record(pod['spec']);
  const status = record(pod['status']);
  const phase = str(status['phase']);
  const nodeName = str(spec['nodeName']);
  const deleting = pod.metadata?.deletionTimestamp !== undefined && phase !== 'Failed' && phase !== 'Succeeded';
  const summary = summarizePod(pod, now);
  return {
    node: nodeName ? `${nodeName}/${str(status['hostIP'])}` : '<none>',
    startTime: status['startTime'] === undefined ? '' : rfc1123z(status['startTime'], offsetMinutes),
    status: deleting ? `Terminating (lasts ${timestampSince(pod.metadata?.deletionTimestamp, now)})` : phase,
    reason: str(status['reason']),
    message: str(status['message']),
    ip: str(status['podIP']),
    ips: arr<Obj>(status['podIPs']).map((ip) => str(record(ip)['ip'])),
    controlledBy: controlledBy(pod),
    nominatedNodeName: str(status['nominatedNodeName']),
    qosClass: str(status['qosClass']) || qosClass({ apiVersion: 'v1', kind: 'Pod', ...pod, metadata: pod.metadata ?? {} } as CoreObject),
    ready: summary.ready,
    printedStatus: summary.status,
    conditions: arr<Obj>(status['conditions']).map((c) => ({ type: str(record(c)['type']), status: str(record(c)['status']) })),
    groups: containerGroups(pod, offsetMinutes),
  };
}
