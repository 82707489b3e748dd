/**
 * Pods and pod templates. The pod Status column is kube's aggregate reason:
 * the phase, overridden by the pod's reason, by init-container progress
 * (Init:1/3, Init:CrashLoopBackOff), by the last container reporting a waiting
 * or terminated reason (ContainerCreating, CrashLoopBackOff, Completed,
 * ExitCode:1), and finally by Terminating/Unknown once deletion has begun.
 */

import { ageColumn, column, CONTAINERS_DESCRIPTION, doc, IMAGES_DESCRIPTION, nameColumn, wide } from './columns';
import { humanDuration, parseTimestamp, timestampSince } from './duration';
import { arr, containerCells, formatLabels, num, str } from './format';
import type { KubeObject, ObjectMeta, PrintContext, PrintedRow, Printer, TableRowCondition } from './types';

interface ContainerSpec {
  name?: string;
  image?: string;
  restartPolicy?: string;
}

interface ContainerStateDetail {
  reason?: string;
  exitCode?: number;
  signal?: number;
  finishedAt?: string;
}

interface ContainerState {
  waiting?: ContainerStateDetail;
  running?: Record<string, unknown>;
  terminated?: ContainerStateDetail;
}

interface ContainerStatus {
  name?: string;
  ready?: boolean;
  started?: boolean;
  restartCount?: number;
  state?: ContainerState;
  lastState?: ContainerState;
}

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
}

interface Pod {
  metadata?: ObjectMeta;
  spec?: {
    containers?: ContainerSpec[];
    initContainers?: ContainerSpec[];
    nodeName?: string;
    readinessGates?: { conditionType?: string }[];
  };
  status?: {
    phase?: string;
    reason?: string;
    conditions?: Condition[];
    initContainerStatuses?: ContainerStatus[];
    containerStatuses?: ContainerStatus[];
    podIP?: string;
    podIPs?: { ip?: string }[];
    nominatedNodeName?: string;
  };
}

const POD_SUCCESS_CONDITIONS: TableRowCondition[] = [
  { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
];
const POD_FAILED_CONDITIONS: TableRowCondition[] = [
  { type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' },
];

/** Sidecar containers are init containers with restartPolicy Always. */
function isRestartableInitContainer(spec: ContainerSpec | undefined): boolean {
  return spec?.restartPolicy === 'Always';
}

function hasConditionTrue(conditions: Condition[], type: string): boolean {
  return conditions.some((c) => c.type === type && c.status === 'True');
}

/** isPodInitializedConditionTrue looks at the first Initialized condition only. */
function isPodInitialized(conditions: Condition[]): boolean {
  const initialized = conditions.find((c) => c.type === 'Initialized');
  return initialized?.status === 'True';
}

/** Time of the latest previous termination, or the current latest when that is newer. */
function latestTermination(current: number | undefined, status: ContainerStatus): number | undefined {
  const finished = parseTimestamp(status.lastState?.terminated?.finishedAt);
  if (finished === undefined) return current;
  return current === undefined || current < finished ? finished : current;
}

function terminatedReason(terminated: ContainerStateDetail, prefix: string): string {
  if (terminated.reason) return prefix + terminated.reason;
  const signal = num(terminated.signal);
  return signal !== 0 ? `${prefix}Signal:${signal}` : `${prefix}ExitCode:${num(terminated.exitCode)}`;
}

export function printPod(obj: KubeObject, ctx: PrintContext): PrintedRow {
  const pod: Pod = obj;
  const spec = pod.spec ?? {};
  const status = pod.status ?? {};
  const conditions = arr<Condition>(status.conditions);
  const initContainers = arr<ContainerSpec>(spec.initContainers);

  let restarts = 0;
  let sidecarRestarts = 0;
  let totalContainers = arr(spec.containers).length;
  let readyContainers = 0;
  let lastRestart: number | undefined;
  let lastSidecarRestart: number | undefined;

  const phase = str(status.phase);
  let reason = status.reason ? status.reason : phase;
  if (conditions.some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) {
    reason = 'SchedulingGated';
  }

  const row: PrintedRow = { cells: [] };
  if (phase === 'Succeeded') row.conditions = POD_SUCCESS_CONDITIONS;
  else if (phase === 'Failed') row.conditions = POD_FAILED_CONDITIONS;

  const initSpecs = new Map<string, ContainerSpec>();
  for (const c of initContainers) {
    initSpecs.set(str(c.name), c);
    if (isRestartableInitContainer(c)) totalContainers++;
  }

  let initializing = false;
  const initStatuses = arr<ContainerStatus>(status.initContainerStatuses);
  for (let i = 0; i < initStatuses.length; i++) {
    const container = initStatuses[i];
    const sidecar = isRestartableInitContainer(initSpecs.get(str(container.name)));
    restarts += num(container.restartCount);
    lastRestart = latestTermination(lastRestart, container);
    if (sidecar) {
      sidecarRestarts += num(container.restartCount);
      lastSidecarRestart = latestTermination(lastSidecarRestart, container);
    }
    const state = container.state ?? {};
    if (state.terminated && num(state.terminated.exitCode) === 0) continue;
    if (sidecar && container.started === true) {
      if (container.ready) readyContainers++;
      continue;
    }
    if (state.terminated) {
      reason = terminatedReason(state.terminated, 'Init:');
    } else if (state.waiting?.reason && state.waiting.reason !== 'PodInitializing') {
      reason = `Init:${state.waiting.reason}`;
    } else {
      reason = `Init:${i}/${initContainers.length}`;
    }
    initializing = true;
    break;
  }

  if (!initializing || isPodInitialized(conditions)) {
    // Only sidecar restarts count alongside the regular containers once initialized.
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses = arr<ContainerStatus>(status.containerStatuses);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const container = statuses[i];
      restarts += num(container.restartCount);
      lastRestart = latestTermination(lastRestart, container);
      const state = container.state ?? {};
      if (state.waiting?.reason) {
        reason = state.waiting.reason;
      } else if (state.terminated?.reason) {
        reason = state.terminated.reason;
      } else if (state.terminated) {
        reason = terminatedReason(state.terminated, '');
      } else if (container.ready && state.running) {
        hasRunning = true;
        readyContainers++;
      }
    }
    // A pod whose last container completed but another still runs is not complete.
    if (reason === 'Completed' && hasRunning) {
      reason = hasConditionTrue(conditions, 'Ready') ? 'Running' : 'NotReady';
    }
  }

  const deleting = parseTimestamp(pod.metadata?.deletionTimestamp) !== undefined;
  if (deleting && status.reason === 'NodeLost') {
    reason = 'Unknown';
  } else if (deleting && phase !== 'Succeeded' && phase !== 'Failed') {
    reason = 'Terminating';
  }

  let restartsCell = String(restarts);
  if (restarts !== 0 && lastRestart !== undefined) {
    restartsCell = `${restarts} (${humanDuration(ctx.now.getTime() - lastRestart)} ago)`;
  }

  let podIP = str(arr<{ ip?: string }>(status.podIPs)[0]?.ip) || str(status.podIP);
  if (podIP === '') podIP = '<none>';
  const nodeName = str(spec.nodeName) || '<none>';
  const nominatedNodeName = str(status.nominatedNodeName) || '<none>';

  let readinessGates = '<none>';
  const gates = arr<{ conditionType?: string }>(spec.readinessGates);
  if (gates.length > 0) {
    let trueConditions = 0;
    for (const gate of gates) {
      const condition = conditions.find((c) => c.type === gate.conditionType);
      if (condition?.status === 'True') trueConditions++;
    }
    readinessGates = `${trueConditions}/${gates.length}`;
  }

  row.cells = [
    str(pod.metadata?.name),
    `${readyContainers}/${totalContainers}`,
    reason,
    restartsCell,
    timestampSince(pod.metadata?.creationTimestamp, ctx.now),
    podIP,
    nodeName,
    nominatedNodeName,
    readinessGates,
  ];
  return row;
}

export const podPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    column('Status', 'string', 'The aggregate status of the containers in this pod.'),
    column(
      'Restarts',
      'string',
      'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    ),
    ageColumn(),
    wide('IP', 'string', doc('core.v1.PodStatus.podIP')),
    wide('Node', 'string', doc('core.v1.PodSpec.nodeName')),
    wide('Nominated Node', 'string', doc('core.v1.PodStatus.nominatedNodeName')),
    wide('Readiness Gates', 'string', doc('core.v1.PodSpec.readinessGates')),
  ],
  row: printPod,
};

export const podTemplatePrinter: Printer = {
  columns: [
    nameColumn(),
    column('Containers', 'string', CONTAINERS_DESCRIPTION),
    column('Images', 'string', IMAGES_DESCRIPTION),
    column('Pod Labels', 'string', 'The labels for the pod template.'),
  ],
  row(obj) {
    const template = obj.template as { metadata?: ObjectMeta; spec?: { containers?: unknown } } | undefined;
    const [names, images] = containerCells(template?.spec?.containers);
    return { cells: [str(obj.metadata?.name), names, images, formatLabels(template?.metadata?.labels)] };
  },
};
