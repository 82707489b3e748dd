/**
 * The kubelets of the simulated nodes: what each does for the pods bound to
 * its node, with no container behind them. A pod is first reported
 * `ContainerCreating` (hostIP, startTime, the pod's conditions), then
 * `Running` with an IP from its node's pod CIDR, its init containers run in
 * order (a regular one terminated `Completed`, a sidecar, restartPolicy
 * Always, started and left running) and its containers running; a container
 * or sidecar is started and ready at once, or as its probes find it on the
 * server clock (prober.ts: startup, liveness, readiness), and sidecars count
 * for the pod's readiness. A container whose startup or liveness probe fails
 * past its threshold is killed (`Killing`: SIGTERM, SIGKILL after the grace
 * period) and started again unless the restartPolicy is Never. Ephemeral
 * containers (`kubectl debug`) are started when they appear, never
 * restarted, and count for neither readiness nor phase. The
 * kubelet records the events a real one does (`Pulling`, `Pulled`,
 * `Created`, `Started`, `Killing`, `BackOff`) on each container's field.
 * Its image manager (imagePull.ts) may find a container's image cannot be
 * had: the container then waits, never created (`InvalidImageName`,
 * `ErrImagePull`, `ImagePullBackOff`, `ErrImageNeverPull`), and the pod with
 * it stays Pending, or in its init containers.
 *
 * Regular containers run forever unless their program says otherwise: pods a
 * Job owns run to completion at once, and two pod annotations script any pod
 * (`kubesim.io/run-seconds`: how long its regular containers run before they
 * exit, `kubesim.io/exit-code`: the code they exit with, 0 by default; init,
 * sidecar and ephemeral containers ignore them). An exit then follows the
 * pod's restartPolicy as the kubelet does: a pod whose containers are not
 * restarted ends `Succeeded` (all exited 0) or `Failed`, its sidecars and
 * ephemeral containers stopped (exit 0 on SIGTERM). A container to be
 * restarted is reported terminated first (`Error`), then started again: at
 * once after its first exit, and after each later one once it has waited in
 * `CrashLoopBackOff` with its last state (10s, doubling to 5 minutes:
 * containerBackOff.ts).
 *
 * A pod being deleted is stopped as killPod does: each container's preStop
 * hook, then SIGTERM, on which a process that handles it exits, and SIGKILL
 * (137) when the deletion's grace period is over; the sidecars after the
 * containers. The pod shows Terminating (its containers ending one by one)
 * until the last has ended; then its final phase is written, and it is
 * deleted with grace period 0, as the kubelet's status manager does.
 */
import type { ClusterNetwork } from './clusterNetwork';
import { ContainerProbes, execProbeResult, probeTimeoutMs, runProbe, type ProbeFindings, type ProbeKind, type ProbeResult } from './prober';
import { isOpaqueContainer } from './image';
import { formatTime, isObject, objectsOf, type KubeObject } from '../api/types';
import { StatusError } from '../errors';
import { newEventRecorder, type EventRecorder } from '../controllers/events';
import type { NamespaceControllerDeps } from '../controllers/namespace';
import { watchInto, type RunningController } from '../controllers/informer';
import { newWorkQueue } from '../controllers/workqueue';
import { controllerRefOf, isPodTerminal, specOf, statusOf } from '../controllers/controllerUtils';
import { hexOf, isKubeletStopped, type SimulatedNode } from './nodes';
import type { ContainerRuntime, ContainerStatusView } from './containerRuntime';
import { newImagePuller } from './imagePull';
import { fullReference, parseImageReference } from './imageReference';
import { followedVolumes, podResyncMs, refreshVolumes } from './volumeRefresh';
import { ContainerBackOff } from './containerBackOff';
import { runLifecycleHandler } from './lifecycleHandler';
import { ProberResults } from './proberResults';
import { podDnsConfig } from './containerView';

type Obj = Record<string, unknown>;

/** Annotations that script a simulated pod's containers. */
export const runSecondsAnnotation = 'kubesim.io/run-seconds';
export const exitCodeAnnotation = 'kubesim.io/exit-code';

/** The image reference as containerd reports it: registry and tag made explicit (one that does not parse, as near as can be). */
export function normalizedImage(image: string): string {
  const parsed = parseImageReference(image);
  if ('ref' in parsed) return fullReference(parsed.ref);
  let ref = image;
  const slash = ref.indexOf('/');
  const first = slash < 0 ? '' : ref.slice(0, slash);
  if (slash < 0) ref = `docker.io/library/${ref}`;
  else if (!first.includes('.') && !first.includes(':') && first !== 'localhost') ref = `docker.io/${ref}`;
  const name = ref.slice(ref.lastIndexOf('/') + 1);
  if (!name.includes(':') && !ref.includes('@')) ref += ':latest';
  return ref;
}

/** A digest for the image, the same every time (there is no registry to ask). */
function imageID(image: string): string {
  const ref = normalizedImage(image);
  const repo = ref.includes('@') ? ref.slice(0, ref.indexOf('@')) : ref.slice(0, ref.lastIndexOf(':') > ref.lastIndexOf('/') ? ref.lastIndexOf(':') : ref.length);
  return `${repo}@sha256:${hexOf(ref, 64)}`;
}

/** What the pod's annotations script: how long its containers run and what they exit with; undefined: their processes decide. */
function programOf(pod: KubeObject): { runMs: number; exitCode: number } | undefined {
  const annotations = pod.metadata.annotations ?? {};
  const seconds = Number(annotations[runSecondsAnnotation]);
  const code = Number(annotations[exitCodeAnnotation]);
  const exitCode = Number.isInteger(code) ? code : 0;
  if (Number.isFinite(seconds) && seconds >= 0) return { runMs: seconds * 1000, exitCode };
  if (annotations[exitCodeAnnotation] !== undefined) return { runMs: 0, exitCode };
  return undefined;
}

/** SortedContainerStatuses: the kubelet reports containers and ephemeral containers by name (init containers in their order). */
const sortedByName = (statuses: Obj[]): Obj[] => [...statuses].sort((a, b) => (String(a['name']) < String(b['name']) ? -1 : String(a['name']) > String(b['name']) ? 1 : 0));
const containerField = (name: unknown) => `spec.containers{${String(name)}}`;
const initContainerField = (name: unknown) => `spec.initContainers{${String(name)}}`;
const ephemeralContainerField = (name: unknown) => `spec.ephemeralContainers{${String(name)}}`;

/** A sidecar: an init container with restartPolicy Always (kubetypes.IsRestartableInitContainer). */
export const isRestartableInitContainer = (c: Obj) => c['restartPolicy'] === 'Always';

const stateOf = (s: Obj | undefined): Obj => (isObject(s?.['state']) ? s['state'] : {});
/** A container waiting because its image could not be had (ErrImagePull and the like). */
const imageWaiting = (s: Obj | undefined): boolean => {
  const waiting = stateOf(s)['waiting'];
  return isObject(waiting) && ['InvalidImageName', 'ErrImageNeverPull', 'ErrImagePull', 'ImagePullBackOff'].includes(String(waiting['reason']));
};
const runningOf = (s: Obj | undefined): Obj | undefined => (isObject(stateOf(s)['running']) ? (stateOf(s)['running'] as Obj) : undefined);
const isTerminatedStatus = (s: Obj | undefined) => isObject(stateOf(s)['terminated']);
const statusesByName = (v: unknown) => new Map(objectsOf(v).map((c) => [String(c['name']), c]));

/** One pod condition as the kubelet writes it; the transition time kept while the status holds. */
function condition(old: Obj[], type: string, status: boolean, now: string, reason?: string, message?: string): Obj {
  const was = old.find((c) => c['type'] === type);
  const value = status ? 'True' : 'False';
  return {
    type,
    status: value,
    lastProbeTime: null,
    lastTransitionTime: was?.['status'] === value && was['lastTransitionTime'] ? was['lastTransitionTime'] : now,
    ...(reason ? { reason } : {}),
    ...(message ? { message } : {}),
  };
}

/** The pod's conditions in the kubelet's order, PodScheduled (the scheduler's) kept last. */
function podConditions(pod: KubeObject, state: { sandbox: boolean; initialized: boolean; unready: string[]; completed: boolean }, now: string, incomplete = objectsOf(specOf(pod)['initContainers']).map((c) => String(c['name']))): Obj[] {
  const old = objectsOf(statusOf(pod)['conditions']);
  const unreadyMessage = `containers with unready status: [${state.unready.join(' ')}]`;
  const conditions = [
    condition(old, 'PodReadyToStartContainers', state.sandbox, now),
    state.completed ? condition(old, 'Initialized', true, now, 'PodCompleted') : condition(old, 'Initialized', state.initialized, now, state.initialized ? undefined : 'ContainersNotInitialized', state.initialized ? undefined : `containers with incomplete status: [${incomplete.join(' ')}]`),
    state.completed ? condition(old, 'Ready', false, now, 'PodCompleted') : condition(old, 'Ready', !state.unready.length, now, state.unready.length ? 'ContainersNotReady' : undefined, state.unready.length ? unreadyMessage : undefined),
    state.completed ? condition(old, 'ContainersReady', false, now, 'PodCompleted') : condition(old, 'ContainersReady', !state.unready.length, now, state.unready.length ? 'ContainersNotReady' : undefined, state.unready.length ? unreadyMessage : undefined),
  ];
  const scheduled = old.find((c) => c['type'] === 'PodScheduled');
  return scheduled ? [...conditions, scheduled] : conditions;
}

/** The init containers not done: a regular one that has not succeeded, a sidecar not running (the Initialized condition's list). */
function incompleteInits(inits: Obj[], statuses: Obj[]): string[] {
  return inits.flatMap((c, i) => {
    const s = statuses[i];
    const done = isRestartableInitContainer(c) ? !!runningOf(s) : isTerminatedStatus(s) && (stateOf(s)['terminated'] as Obj)['exitCode'] === 0;
    return done ? [] : [String(c['name'])];
  });
}

/** PodStatus in the API's field order, over what the status held (qosClass and the rest kept). */
function podStatus(pod: KubeObject, fields: Obj): Obj {
  const old = statusOf(pod);
  const order = ['phase', 'conditions', 'message', 'reason', 'nominatedNodeName', 'hostIP', 'hostIPs', 'podIP', 'podIPs', 'startTime', 'initContainerStatuses', 'containerStatuses', 'qosClass', 'ephemeralContainerStatuses'];
  const merged: Obj = { ...old, ...fields };
  const out: Obj = {};
  for (const k of order) if (merged[k] !== undefined) out[k] = merged[k];
  for (const k of Object.keys(merged)) if (!(k in out) && merged[k] !== undefined) out[k] = merged[k];
  return out;
}

/** ContainerStatus in the API's field order. */
function containerStatus(container: Obj, s: { state: Obj; lastState?: Obj; ready: boolean; restartCount: number; containerID?: string; started?: boolean }): Obj {
  const image = String(container['image'] ?? '');
  return {
    name: container['name'],
    state: s.state,
    lastState: s.lastState ?? {},
    ready: s.ready,
    restartCount: s.restartCount,
    image: normalizedImage(image),
    imageID: s.containerID ? imageID(image) : '',
    ...(s.containerID ? { containerID: s.containerID } : {}),
    // The prober manager sets started for containers and init containers only, never for ephemeral ones.
    ...(s.started !== undefined ? { started: s.started } : {}),
    // RecursiveReadOnlyMounts (beta, on in 1.32): the mounts of a container the runtime has.
    ...(s.containerID && objectsOf(container['volumeMounts']).length ? { volumeMounts: objectsOf(container['volumeMounts']).map(volumeMountStatus) } : {}),
  };
}

/**
 * How a running container ended by now, as its terminated state: runc could
 * not start it (StartError, 128, never started: the zero time), or its
 * process exited; undefined while it runs.
 */
function terminatedState(end: ContainerStatusView, running: Obj, containerID: unknown, nowMs: number): { exitCode: number } & Obj | undefined {
  if (end.error !== undefined) return { exitCode: 128, reason: 'StartError', message: end.error, startedAt: '1970-01-01T00:00:00Z', finishedAt: formatTime(new Date(nowMs)), containerID };
  if (!end.exit || nowMs < end.exit.at) return undefined;
  const exitCode = end.exit.code;
  return { exitCode, reason: end.exit.reason ?? (exitCode === 0 ? 'Completed' : 'Error'), startedAt: running['startedAt'], finishedAt: formatTime(new Date(end.exit.at)), containerID };
}

/** VolumeMountStatus: a read-only mount is not made recursively read-only unless asked (and the runtime cannot). */
function volumeMountStatus(m: Obj): Obj {
  const readOnly = m['readOnly'] === true;
  const recursive = m['recursiveReadOnly'] === 'Enabled' || m['recursiveReadOnly'] === 'IfPossible';
  return { name: m['name'], mountPath: m['mountPath'], ...(readOnly ? { readOnly, recursiveReadOnly: recursive ? 'Enabled' : 'Disabled' } : {}) };
}

/** A container the kubelet stopped: a running one exits 0 on SIGTERM; one that never ran cannot be found (137, as convertToAPIContainerStatuses says). */
function stoppedStatus(container: Obj, was: Obj | undefined, now: string, started: boolean | undefined): Obj {
  const running = runningOf(was);
  const containerID = was?.['containerID'] === undefined ? undefined : String(was['containerID']);
  return containerStatus(container, {
    state: running
      ? { terminated: { exitCode: 0, reason: 'Completed', startedAt: running['startedAt'], finishedAt: now, containerID } }
      : { terminated: { exitCode: 137, reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated', startedAt: null, finishedAt: null } },
    lastState: isObject(was?.['lastState']) ? was['lastState'] : {},
    ready: false,
    restartCount: Number(was?.['restartCount'] ?? 0),
    ...(containerID ? { containerID } : {}),
    started,
  });
}

export function startKubelets(deps: NamespaceControllerDeps, nodes: readonly SimulatedNode[], runtime?: ContainerRuntime, network?: ClusterNetwork, proberResults = new ProberResults()): RunningController {
  const pods = deps.storeFor(deps.registry.resourceFor('', 'v1', 'pods')!);
  const nodeStore = deps.storeFor(deps.registry.resourceFor('', 'v1', 'nodes')!);
  const byName = new Map(nodes.map((n) => [n.name, n]));
  /** The pods seen on each node, so a kubelet that starts again looks at all of them. */
  const podsByNode = new Map<string, Set<string>>(nodes.map((n) => [n.name, new Set()]));
  const recorders = new Map<string, EventRecorder>(nodes.map((n) => [n.name, newEventRecorder(deps, 'kubelet', n.name)]));
  /** Pod IPs in use per node: ip -> pod uid. */
  const ips = new Map<string, Map<string, string>>(nodes.map((n) => [n.name, new Map()]));
  const stopped = new AbortController();
  /** The image manager the kubelets share: pull back-offs per pod and image. */
  const puller = newImagePuller();
  /** Each running container's prober workers, by container id. */
  const probers = new Map<string, ContainerProbes>();
  /** Containers being killed after a failed probe, by container id: how they end, and whether they are started again. */
  const kills = new Map<string, { exit: { code: number; at: number }; restart: boolean }>();
  /**
   * Containers whose postStart hook has not let them run yet, by container id: their run's start, when the
   * hook ends, its failure, and the kill a failure brings (how the container ends).
   */
  const postStarts = new Map<string, { startedAt: string; until: number; failed?: string; exit?: { code: number; at: number } }>();
  /** The containers of each pod being deleted, by uid: how and when each ends (planStop). */
  const stopping = new Map<string, Map<string, { code: number; at: number }>>();
  /** The crash-loop back-off of each container, by `uid/name`. */
  const backOff = new ContainerBackOff();
  /** The pod uid of each container id above, to let them go with the pod. */
  const ownerOf = new Map<string, string>();
  /** Each pod's uid, to let its containers go when it is deleted. */
  const uids = new Map<string, string>();
  /** Each pod's last volume remount (its sync time) and the spec and metadata it saw, by uid. */
  const volumeSyncs = new Map<string, { config: string; at: number }>();
  /** Wake-ups already asked for, as `key@ms`. */
  const timers = new Set<string>();
  let ipsLoaded = false;

  const queue = newWorkQueue('kubelet', sync);

  /** Syncs the pod again at ms on the server clock (a probe's delay, a program's end, a back-off). */
  function wakeAt(key: string, ms: number): void {
    const mark = `${key}@${ms}`;
    if (timers.has(mark)) return;
    timers.add(mark);
    void deps.clock.sleep(Math.max(0, ms - deps.clock.now().getTime()), stopped.signal).then(() => {
      timers.delete(mark);
      if (!stopped.signal.aborted) queue.add(key);
    });
  }

  /** The pod IPs already handed out, from the pods the nodes run (after a restart of the server). */
  async function loadIPs(): Promise<void> {
    if (ipsLoaded) return;
    ipsLoaded = true;
    for (const pod of (await pods.list('')).items) {
      const used = ips.get(String(specOf(pod)['nodeName'] ?? ''));
      const ip = statusOf(pod)['podIP'];
      if (used && typeof ip === 'string' && !isPodTerminal(pod)) used.set(ip, pod.metadata.uid!);
    }
  }

  function allocateIP(node: SimulatedNode, uid: string): string | undefined {
    const used = ips.get(node.name)!;
    for (const [ip, owner] of used) if (owner === uid) return ip;
    const base = node.podCIDR.slice(0, node.podCIDR.lastIndexOf('.'));
    for (let host = 2; host < 255; host++) {
      const ip = `${base}.${host}`;
      if (!used.has(ip)) {
        used.set(ip, uid);
        return ip;
      }
    }
    return undefined;
  }

  function releaseIP(nodeName: string, uid: string | undefined): void {
    const used = ips.get(nodeName);
    if (!used) return;
    for (const [ip, owner] of used) if (owner === uid) used.delete(ip);
  }

  async function writeStatus(pod: KubeObject, status: Obj): Promise<void> {
    await pods.update(pod.metadata.namespace!, pod.metadata.name!, (cur) => {
      if (!cur || cur.metadata.uid !== pod.metadata.uid || cur.metadata.resourceVersion !== pod.metadata.resourceVersion) {
        throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 409, reason: 'Conflict', message: 'changed' });
      }
      cur['status'] = status;
      return cur;
    }, { subresource: 'status' });
  }

  async function sync(key: string): Promise<void> {
    await loadIPs();
    const [namespace, name] = key.split('/') as [string, string];
    const kv = await pods.getKv(namespace, name);
    if (!kv) {
      for (const keys of podsByNode.values()) keys.delete(key);
      // The pod is gone: so are its containers and their logs.
      const uid = uids.get(key);
      if (uid !== undefined) {
        runtime?.forgetPod(uid);
        puller.forgetPod(uid);
        volumeSyncs.delete(uid);
        backOff.forget(`${uid}/`);
        stopping.delete(uid);
        proberResults.forgetPod(uid);
        for (const id of [...probers.keys(), ...kills.keys(), ...postStarts.keys()]) if (ownerOf.get(id) === uid) {
          probers.delete(id);
          kills.delete(id);
          postStarts.delete(id);
          ownerOf.delete(id);
        }
      }
      uids.delete(key);
      return;
    }
    const pod = pods.decode(kv);
    uids.set(key, pod.metadata.uid ?? '');
    const node = byName.get(String(specOf(pod)['nodeName'] ?? ''));
    if (!node) return;
    podsByNode.get(node.name)!.add(key);
    // A stopped kubelet does nothing: its pods stay as they were (Terminating ones too) until it starts again.
    const nodeKv = await nodeStore.getKv('', node.name);
    if (isKubeletStopped(nodeKv && nodeStore.decode(nodeKv))) return;
    const recorder = recorders.get(node.name)!;
    try {
      if (pod.metadata.deletionTimestamp) await terminate(key, pod, node, recorder);
      else if (!isPodTerminal(pod)) await run(key, pod, node, recorder);
    } catch (e) {
      // Changed or gone meanwhile: the write's own event brings the pod back.
      if (!(e instanceof StatusError && (e.code === 409 || e.code === 404))) throw e;
    }
  }

  /** A core object as the kubelet's watch-based ConfigMap and Secret managers have it (the store, at once). */
  async function getCore(resource: string, namespace: string, name: string): Promise<KubeObject | undefined> {
    const type = deps.registry.resourceFor('', 'v1', resource);
    if (!type) return undefined;
    const store = deps.storeFor(type);
    const kv = await store.getKv(namespace, name);
    return kv ? store.decode(kv) : undefined;
  }

  /**
   * The pod worker's sync remounts the pod's configMap, secret, downwardAPI
   * and projected volumes (volumeRefresh.ts): at its periodic resync, every
   * podResyncMs after the last, when the pod's spec, labels or annotations
   * change (the config source's UPDATE; other status writes are not one),
   * and when one of its containers starts or ends (a PLEG event: a
   * restarted container mounts the files as they are now). Returns when to
   * sync again for it (Infinity: nothing to follow).
   */
  async function syncVolumes(pod: KubeObject, nowMs: number): Promise<number> {
    if (!runtime || !followedVolumes(pod).length) return Infinity;
    const uid = pod.metadata.uid ?? '';
    const containers = (['initContainerStatuses', 'containerStatuses', 'ephemeralContainerStatuses'] as const).flatMap((k) => objectsOf(statusOf(pod)[k]).map((c) => [c['containerID'], Object.keys(stateOf(c))]));
    const config = JSON.stringify([pod.metadata.labels ?? {}, pod.metadata.annotations ?? {}, specOf(pod), containers]);
    const last = volumeSyncs.get(uid);
    if (!last || last.config !== config || nowMs >= last.at + podResyncMs) {
      volumeSyncs.set(uid, { config, at: nowMs });
      await refreshVolumes({ get: getCore }, pod, (volume) => runtime.volumeStore(volume), nowMs);
    }
    return volumeSyncs.get(uid)!.at + podResyncMs;
  }

  /** How a running container's process ends: as the pod's annotations script it, else as the runtime runs it. */
  async function containerEnd(pod: KubeObject, c: Obj, status: Obj, startedAt: string, program: { runMs: number; exitCode: number } | undefined, nowMs: number): Promise<ContainerStatusView> {
    if (program) return { exit: { code: program.exitCode, at: Date.parse(startedAt) + program.runMs } };
    // With no runtime, a Job's pod completes at once.
    if (!runtime) return controllerRefOf(pod)?.kind === 'Job' ? { exit: { code: 0, at: Date.parse(startedAt) } } : {};
    return runtime.status(String(status['containerID']), pod, String(c['name']), startedAt, nowMs);
  }

  /** Moves a live pod one step: sandbox, containers started, readiness, exits and restarts. */
  async function run(key: string, pod: KubeObject, node: SimulatedNode, recorder: EventRecorder): Promise<void> {
    const nowDate = deps.clock.now();
    const now = formatTime(nowDate);
    const nowMs = nowDate.getTime();
    const spec = specOf(pod);
    const containers = objectsOf(spec['containers']);
    const inits = objectsOf(spec['initContainers']);
    const status = statusOf(pod);
    const previous = new Map(objectsOf(status['containerStatuses']).map((c) => [c['name'], c]));
    const hostIPs = [{ ip: node.internalIP }];

    // First report: the sandbox is being made, nothing runs yet.
    if (!status['startTime']) {
      const unready = [...inits.filter(isRestartableInitContainer), ...containers].map((c) => String(c['name']));
      await writeStatus(pod, podStatus(pod, {
        phase: 'Pending',
        conditions: podConditions(pod, { sandbox: false, initialized: inits.length === 0, unready, completed: false }, now),
        hostIP: node.internalIP,
        hostIPs,
        startTime: now,
        ...(inits.length ? { initContainerStatuses: inits.map((c) => containerStatus(c, { state: { waiting: { reason: 'PodInitializing' } }, ready: false, restartCount: 0, started: false })) } : {}),
        containerStatuses: sortedByName(containers.map((c) => containerStatus(c, { state: { waiting: { reason: inits.length ? 'PodInitializing' : 'ContainerCreating' } }, ready: false, restartCount: 0, started: false }))),
      }));
      return;
    }

    const program = programOf(pod);
    const restartPolicy = String(spec['restartPolicy'] ?? 'Always');
    // A pod on the host's network namespace has the node's address (the CNI plugin gives it none).
    const podIP = status['podIP'] ?? (spec['hostNetwork'] === true ? node.internalIP : allocateIP(node, pod.metadata.uid!));
    if (podIP === undefined) return;
    // The sandbox exists before any container starts: a container's /etc/hosts and `hostname -i` already have its address.
    const sandbox = { ...pod, status: { ...status, hostIP: node.internalIP, hostIPs, podIP, podIPs: [{ ip: podIP }] } } as KubeObject;
    /** Events as [fieldPath, type, reason, message], recorded once the status is written. */
    const events: [string, string, string, string][] = [];
    // The sandbox is made now: the kubelet forms its DNS configuration, and says what it left out.
    if (status['podIP'] === undefined) {
      const dns = podDnsConfig(pod);
      if (dns.trimmed) events.push(['', 'Warning', 'DNSConfigForming', `Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: ${dns.servers.join(' ')}`]);
    }
    /** The image manager's look at the container's image: its events, and the waiting state when the container cannot be created. */
    const pull = (c: Obj, field: string): Obj | undefined => {
      const result = puller.ensure(pod.metadata.uid ?? '', c, nowMs);
      for (const [type, reason, message] of result.events) events.push([field, type, reason, message]);
      if (result.retryAt !== undefined) wake = Math.min(wake, result.retryAt);
      return result.waiting;
    };
    const start = (c: Obj, restartCount: number, field: string): Obj => {
      events.push([field, 'Normal', 'Created', `Created container: ${c['name']}`]);
      events.push([field, 'Normal', 'Started', `Started container ${c['name']}`]);
      const containerID = `containerd://${hexOf(`${pod.metadata.uid}/${c['name']}/${restartCount}`, 64)}`;
      runtime?.started(containerID);
      return { containerID, startedAt: now };
    };

    let wake = Infinity;
    if (runtime) wake = Math.min(wake, await syncVolumes(sandbox, nowMs));
    /**
     * The container's probes (prober.ts) run to now, each at its times: started once a startup probe passes,
     * ready as the readiness probe last found it, and a kill when a startup or liveness probe failed past its
     * threshold; with no probe, started and ready at once. The prober starts once the status shows the
     * container running (the write of this sync brings the next one); `until`: the process ended then.
     */
    const probe = async (c: Obj, running: Obj, field: string, containerID: string, until?: number): Promise<ProbeFindings> => {
      const has = (k: string) => isObject(c[k]);
      if (!has('startupProbe') && !has('livenessProbe') && !has('readinessProbe')) return { started: true, ready: true };
      const startedAt = String(running['startedAt']);
      const reported = [...objectsOf(status['containerStatuses']), ...objectsOf(status['initContainerStatuses'])].find((x) => x['name'] === c['name']);
      if (String(runningOf(reported)?.['startedAt'] ?? '') !== startedAt) return { started: !has('startupProbe'), ready: !has('startupProbe') && !has('readinessProbe') };
      let probes = probers.get(containerID);
      if (!probes) {
        probers.set(containerID, (probes = new ContainerProbes(c, Date.parse(startedAt))));
        ownerOf.set(containerID, pod.metadata.uid ?? '');
      }
      const name = String(c['name']);
      const runOne = async (kind: ProbeKind, p: Obj, at: number): Promise<ProbeResult> => {
        const result = await runProbeOf(p, at);
        if (result.ok || !result.errored) proberResults.record(pod.metadata.uid ?? '', name, kind, result.ok ? 'successful' : 'failed');
        return result;
      };
      const runProbeOf = async (p: Obj, at: number): Promise<ProbeResult> => {
        // What kubesim cannot see into passes, as its image presumably serves (a grpc probe too).
        if (isOpaqueContainer(c) || isObject(p['grpc'])) return { ok: true };
        if (isObject(p['exec'])) {
          const argv = Array.isArray(p['exec']['command']) ? p['exec']['command'].map(String) : [];
          if (!runtime) return { ok: true };
          const r = await runtime.execSync(containerID, pod, name, startedAt, argv, at, probeTimeoutMs(p));
          return execProbeResult(r, argv, hexOf(`${containerID}/exec/${at}`, 64));
        }
        return runProbe(network, pod, String(podIP), c, p, at);
      };
      const findings = await probes.advance(Math.min(nowMs, (until ?? Infinity) - 1), runOne, (e) => {
        events.push([field, 'Warning', 'Unhealthy', `${e.kind} probe ${e.result.errored ? 'errored' : 'failed'}: ${e.result.message}`]);
      });
      // The probe workers run every period for as long as the container does (each run counts in /metrics/probes).
      if (findings.next !== undefined) wake = Math.min(wake, findings.next);
      return findings;
    };
    /**
     * Kills a container whose startup or liveness probe failed (killContainer): SIGTERM, then SIGKILL after the
     * grace period (the probe's terminationGracePeriodSeconds, else the pod's); a process that exits on SIGTERM
     * ends then, one that ignores it (a PID 1 without a handler) is killed: 137.
     */
    const kill = async (c: Obj, containerID: string, startedAt: string, k: NonNullable<ProbeFindings['kill']>, field: string): Promise<void> => {
      if (kills.has(containerID)) return;
      const name = String(c['name']);
      const restart = isRestartableInitContainer(c) || restartPolicy !== 'Never';
      events.push([field, 'Normal', 'Killing', `Container ${name} failed ${k.kind === 'Liveness' ? 'liveness' : 'startup'} probe${restart ? ', will be restarted' : ''}`]);
      const graceSeconds = Number(k.probe['terminationGracePeriodSeconds'] ?? spec['terminationGracePeriodSeconds'] ?? 30);
      const exit = await stopContainer(sandbox, c, containerID, startedAt, graceSeconds, k.at, 143, (reason, message) => events.push([field, 'Warning', reason, message]));
      kills.set(containerID, { exit, restart });
    };

    /** The container was created but runc could not start it: `Failed` in place of `Started`. */
    const failedStart = (field: string, error: string) => {
      const started = events.findIndex(([f, , reason]) => f === field && reason === 'Started');
      const failed: [string, string, string, string] = [field, 'Warning', 'Failed', `Error: ${error}`];
      if (started >= 0) events[started] = failed;
      else events.push(failed);
    };
    /** Whether a container that exited with exitCode is started again: a sidecar always; else a failed probe's kill says, or the restartPolicy. */
    const restartsAfter = (c: Obj, containerID: string, exitCode: unknown): boolean => {
      if (isRestartableInitContainer(c)) return true;
      const killed = kills.get(containerID);
      return killed ? killed.restart : restartPolicy === 'Always' || (restartPolicy === 'OnFailure' && exitCode !== 0);
    };
    /** The exit a container is to be started again after: its terminated state (reported, not yet restarted), or the last one of a container waiting again (CrashLoopBackOff, an image to pull). */
    const exitToRestart = (c: Obj, was: Obj | undefined): Obj | undefined => {
      const state = stateOf(was);
      if (isObject(state['terminated'])) return restartsAfter(c, String(was!['containerID']), state['terminated']['exitCode']) ? state['terminated'] : undefined;
      if (!isObject(state['waiting'])) return undefined;
      return isObject(was!['lastState']) && isObject(was!['lastState']['terminated']) ? was!['lastState']['terminated'] : undefined;
    };
    /**
     * doBackOff for a container to be started again after exit: while it must wait, its CrashLoopBackOff status
     * (a `BackOff` event when the wait begins) and the kubelet looks again when the wait ends; undefined when
     * it may start now.
     */
    const crashLoop = (c: Obj, was: Obj, exit: Obj, field: string): Obj | undefined => {
      const name = String(c['name']);
      const wait = backOff.waiting(`${pod.metadata.uid}/${name}`, Date.parse(String(exit['finishedAt'])), nowMs);
      if (!wait) return undefined;
      wake = Math.min(wake, wait.until);
      if (isObject(stateOf(was)['terminated'])) events.push([field, 'Warning', 'BackOff', `Back-off restarting failed container ${name} in pod ${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`]);
      const message = `back-off ${wait.backOffMs / 1000}s restarting failed container=${name} pod=${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`;
      return containerStatus(c, { state: { waiting: { reason: 'CrashLoopBackOff', message } }, lastState: { terminated: exit }, ready: false, restartCount: Number(was['restartCount'] ?? 0), containerID: String(was['containerID']), started: false });
    };
    /**
     * How a running container's process ends, as its probes leave it: the probes run up to its end, and a kill
     * after a failed startup or liveness probe ends it then, unless it ended first.
     */
    const probedEnd = async (c: Obj, containerID: string, running: Obj, field: string, end: ContainerStatusView): Promise<{ end: ContainerStatusView; health?: ProbeFindings }> => {
      const health = end.error === undefined ? await probe(c, running, field, containerID, end.exit?.at) : undefined;
      if (health?.kill) await kill(c, containerID, String(running['startedAt']), health.kill, field);
      const killed = kills.get(containerID);
      const ending = killed && end.error === undefined && !(end.exit && end.exit.at <= killed.exit.at) ? { exit: killed.exit } : end;
      return health ? { end: ending, health } : { end: ending };
    };
    /** A container's run: the one it has, or one started now (startOrWait); without `running`, its waiting or ended status. */
    const currentRun = async (c: Obj, was: Obj | undefined, field: string): Promise<{ status: Obj; running?: Obj }> => {
      const running = runningOf(was);
      if (running) return { status: was!, running };
      const status = await startOrWait(c, was, field);
      const started = runningOf(status);
      return started ? { status, running: started } : { status };
    };
    /**
     * A container that does not run: started (the first time, or again after its last exit once any back-off
     * is over: the back-off moves on and restartCount counts it), else its waiting status (CrashLoopBackOff, or
     * the image manager's reason).
     */
    const startOrWait = async (c: Obj, was: Obj | undefined, field: string): Promise<Obj> => {
      if (was?.['containerID'] !== undefined && postStarts.has(String(was['containerID']))) return afterPostStart(c, was, field);
      const exit = exitToRestart(c, was);
      const waitingOut = exit && crashLoop(c, was!, exit, field);
      if (waitingOut) return waitingOut;
      const lastState = exit ? { terminated: exit } : {};
      const restartCount = Number(was?.['restartCount'] ?? 0);
      const waiting = pull(c, field);
      if (waiting) return containerStatus(c, { state: { waiting }, lastState, ready: false, restartCount, ...(was?.['containerID'] ? { containerID: String(was['containerID']) } : {}), started: false });
      if (exit) backOff.next(`${pod.metadata.uid}/${c['name']}`, Date.parse(String(exit['finishedAt'])), nowMs);
      const count = restartCount + (exit ? 1 : 0);
      const started = start(c, count, field);
      const status = containerStatus(c, { state: { running: { startedAt: started['startedAt'] } }, lastState, ready: false, restartCount: count, containerID: String(started['containerID']), started: true });
      const hook = isObject(c['lifecycle']) && isObject(c['lifecycle']['postStart']) ? c['lifecycle']['postStart'] : undefined;
      if (!hook) return status;
      // startContainer runs the hook before the sync goes on (no time limit in kube; kubesim waits at most 5 minutes).
      const ran = await runLifecycleHandler(runtime, network, sandbox, c, String(started['containerID']), String(started['startedAt']), hook, nowMs, 300_000);
      postStarts.set(String(started['containerID']), { startedAt: String(started['startedAt']), until: ran.at, ...(ran.failed !== undefined ? { failed: ran.failed } : {}) });
      ownerOf.set(String(started['containerID']), pod.metadata.uid ?? '');
      return afterPostStart(c, status, field);
    };
    /**
     * A container whose postStart hook runs: ContainerCreating until it is done, then running. A failed hook
     * (FailedPostStartHook) kills the container as a probe's kill does; once it has ended, it waits as
     * PostStartHookError to be started again, or, under restartPolicy Never, stays terminated.
     */
    const afterPostStart = async (c: Obj, status: Obj, field: string): Promise<Obj> => {
      const containerID = String(status['containerID']);
      const hooked = postStarts.get(containerID)!;
      const lastState = isObject(status['lastState']) ? status['lastState'] : {};
      const restartCount = Number(status['restartCount'] ?? 0);
      const creating = () => containerStatus(c, { state: { waiting: { reason: 'ContainerCreating' } }, lastState, ready: false, restartCount, containerID, started: false });
      if (nowMs < hooked.until) {
        wake = Math.min(wake, hooked.until);
        return creating();
      }
      if (hooked.failed === undefined) {
        postStarts.delete(containerID);
        return containerStatus(c, { state: { running: { startedAt: hooked.startedAt } }, lastState, ready: false, restartCount, containerID, started: true });
      }
      if (!hooked.exit) {
        events.push([field, 'Warning', 'FailedPostStartHook', 'PostStartHook failed']);
        events.push([field, 'Normal', 'Killing', 'FailedPostStartHook']);
        hooked.exit = await stopContainer(sandbox, c, containerID, hooked.startedAt, Number(spec['terminationGracePeriodSeconds'] ?? 30), hooked.until, 137, (reason, message) => events.push([field, 'Warning', reason, message]));
      }
      if (nowMs < hooked.exit.at) {
        wake = Math.min(wake, hooked.exit.at);
        return creating();
      }
      postStarts.delete(containerID);
      const terminated = terminatedState({ exit: hooked.exit }, { startedAt: hooked.startedAt }, containerID, nowMs)!;
      if (!isRestartableInitContainer(c) && restartPolicy === 'Never') return containerStatus(c, { state: { terminated }, lastState, ready: false, restartCount, containerID, started: false });
      wake = Math.min(wake, nowMs);
      return containerStatus(c, { state: { waiting: { reason: 'PostStartHookError', message: hooked.failed } }, lastState: { terminated }, ready: false, restartCount, containerID, started: false });
    };

    // Init containers in order (computeInitContainerActions): a regular one runs its process to completion
    // before the next starts, a sidecar (restartPolicy Always) starts and keeps running; the containers start
    // once every regular one has succeeded. One that fails is restarted after the back-off, or, under
    // restartPolicy Never, fails the pod.
    const previousInits = statusesByName(status['initContainerStatuses']);
    /** Whether the pod was initialized already: a sidecar's restart does not hold its containers back again. */
    const podInitialized = objectsOf(status['conditions']).some((k) => k['type'] === 'Initialized' && k['status'] === 'True');
    const initStatuses: Obj[] = [];
    let initialized = true;
    let initFailed = false;
    for (const c of inits) {
      const name = String(c['name']);
      const was = previousInits.get(name);
      const field = initContainerField(name);
      if (!initialized) {
        initStatuses.push(was ?? containerStatus(c, { state: { waiting: { reason: 'PodInitializing' } }, ready: false, restartCount: 0, started: false }));
        continue;
      }
      if (isRestartableInitContainer(c)) {
        // A sidecar runs beside the containers, started again whenever it ends (with the back-off), whatever the
        // pod's restartPolicy; one that does not run holds back the init containers after it, until the pod is
        // initialized: a restart later does not hold the containers.
        const { status: current, running } = await currentRun(c, was, field);
        if (!running) {
          if (!podInitialized) initialized = false;
          initStatuses.push(current);
          continue;
        }
        const containerID = String(current['containerID']);
        const { end, health } = await probedEnd(c, containerID, running, field, runtime ? await runtime.status(containerID, sandbox, name, String(running['startedAt']), nowMs) : {});
        const ended = terminatedState(end, running, containerID, nowMs);
        if (ended) {
          if (end.error !== undefined) failedStart(field, end.error);
          if (!podInitialized) initialized = false;
          initStatuses.push(containerStatus(c, { state: { terminated: ended }, lastState: isObject(current['lastState']) ? current['lastState'] : {}, ready: false, restartCount: Number(current['restartCount'] ?? 0), containerID, started: false }));
          wake = Math.min(wake, nowMs);
          continue;
        }
        if (end.exit) wake = Math.min(wake, end.exit.at);
        else if (end.checkAt !== undefined) wake = Math.min(wake, end.checkAt);
        initStatuses.push({ ...current, ready: health?.ready ?? true, started: health?.started ?? true });
        continue;
      }
      if (isTerminatedStatus(was) && ((stateOf(was)['terminated'] as Obj)['exitCode'] === 0 || !exitToRestart(c, was))) {
        // Succeeded, or failed under restartPolicy Never.
        initStatuses.push(was!);
        if ((stateOf(was)['terminated'] as Obj)['exitCode'] !== 0) {
          initialized = false;
          initFailed = true;
        }
        continue;
      }
      const { status: current, running } = await currentRun(c, was, field);
      if (!running) {
        initialized = false;
        initStatuses.push(current);
        continue;
      }
      const restartCount = Number(current['restartCount'] ?? 0);
      const lastState = isObject(current['lastState']) ? current['lastState'] : {};
      const containerID = current['containerID'];
      const end: ContainerStatusView = runtime ? await runtime.status(String(containerID), sandbox, name, String(running['startedAt']), nowMs) : { exit: { code: 0, at: Date.parse(String(running['startedAt'])) } };
      const ended = terminatedState(end, running, containerID, nowMs);
      if (!ended) {
        initialized = false;
        initStatuses.push(current);
        if (end.exit) wake = Math.min(wake, end.exit.at);
        else if (end.checkAt !== undefined) wake = Math.min(wake, end.checkAt);
        continue;
      }
      if (end.error !== undefined) failedStart(field, end.error);
      if (ended.exitCode === 0) {
        initStatuses.push(containerStatus(c, { state: { terminated: ended }, lastState, ready: true, restartCount, containerID: String(containerID), started: false }));
        continue;
      }
      initialized = false;
      // Failed: the pod fails under restartPolicy Never; else it is reported terminated and looked at again at once.
      if (restartPolicy === 'Never') initFailed = true;
      else wake = Math.min(wake, nowMs);
      initStatuses.push(containerStatus(c, { state: { terminated: ended }, lastState, ready: false, restartCount, containerID: String(containerID), started: false }));
    }

    const next: Obj[] = [];
    for (const c of containers) {
      const cname = String(c['name']);
      const was = previous.get(cname);
      // Until the init containers are done, the containers wait.
      if (!initialized) {
        next.push(was ?? containerStatus(c, { state: { waiting: { reason: 'PodInitializing' } }, ready: false, restartCount: 0, started: false }));
        continue;
      }
      if (isTerminatedStatus(was) && !exitToRestart(c, was)) {
        // Exited for good.
        next.push(was!);
        continue;
      }
      const { status: current, running } = await currentRun(c, was, containerField(cname));
      next.push(current);
      if (!running) continue;
      const restartCount = Number(current['restartCount'] ?? 0);
      const lastState = isObject(current['lastState']) ? current['lastState'] : {};
      const containerID = String(current['containerID']);
      const { end, health } = await probedEnd(c, containerID, running, containerField(cname), await containerEnd(sandbox, c, current, String(running['startedAt']), program, nowMs));
      // The process's end: it exited by now, or runc could not start it.
      const ended = terminatedState(end, running, current['containerID'], nowMs);
      if (ended) {
        if (end.error !== undefined) failedStart(containerField(cname), end.error);
        next[next.length - 1] = containerStatus(c, { state: { terminated: ended }, lastState, ready: false, restartCount, containerID: String(current['containerID']), started: false });
        // One to be started again (computePodActions) is reported terminated, then looked at again at once.
        if (restartsAfter(c, String(current['containerID']), ended.exitCode)) wake = Math.min(wake, nowMs);
        continue;
      }
      if (end.exit) wake = Math.min(wake, end.exit.at);
      else if (end.checkAt !== undefined) wake = Math.min(wake, end.checkAt);
      const ready = health?.ready ?? true;
      const started = health?.started ?? true;
      if (current['ready'] !== ready || current['started'] !== started) next[next.length - 1] = { ...current, ready, started };
    }

    // Ephemeral containers: started once each, never restarted, not counted for readiness or phase; one whose process exits stays terminated.
    const previousEphemeral = statusesByName(status['ephemeralContainerStatuses']);
    const ephemeral: Obj[] = [];
    for (const c of objectsOf(spec['ephemeralContainers'])) {
      const prior = previousEphemeral.get(String(c['name']));
      // One whose image could not be had is tried again.
      const was = prior && !imageWaiting(prior) ? prior : undefined;
      const current = was ?? (() => {
        const waiting = pull(c, ephemeralContainerField(c['name']));
        if (waiting) return containerStatus(c, { state: { waiting }, ready: false, restartCount: 0 });
        const started = start(c, 0, ephemeralContainerField(c['name']));
        return containerStatus(c, { state: { running: { startedAt: started['startedAt'] } }, ready: false, restartCount: 0, containerID: String(started['containerID']) });
      })();
      const running = runningOf(current);
      if (running && runtime) {
        const end = await runtime.status(String(current['containerID']), sandbox, String(c['name']), String(running['startedAt']), nowMs);
        const terminated = terminatedState(end, running, current['containerID'], nowMs);
        if (terminated) {
          ephemeral.push(containerStatus(c, { state: { terminated }, ready: false, restartCount: 0, containerID: String(current['containerID']) }));
          continue;
        }
        if (end.exit) wake = Math.min(wake, end.exit.at);
        else if (end.checkAt !== undefined) wake = Math.min(wake, end.checkAt);
      }
      ephemeral.push(current);
    }

    // The phase comes from the regular containers: once they have all exited for good, the pod is done.
    // An init container failed under restartPolicy Never: the pod has failed; one still initializing is Pending.
    const exited = next.filter((s, i) => isTerminatedStatus(s) && !exitToRestart(containers[i]!, s));
    const completed = initFailed || (exited.length === containers.length && containers.length > 0);
    // getPhase: a container waiting that has never run (its image not had yet) keeps the pod Pending.
    const neverRan = next.some((s) => isObject(stateOf(s)['waiting']) && !(isObject(s['lastState']) && isObject(s['lastState']['terminated'])));
    const phase = initFailed ? 'Failed' : !initialized ? 'Pending' : completed ? (exited.every((s) => (stateOf(s)['terminated'] as Obj)['exitCode'] === 0) ? 'Succeeded' : 'Failed') : neverRan ? 'Pending' : 'Running';
    // A finished pod is killed: its sidecars and ephemeral containers are stopped.
    const stop = (list: Obj[], specs: Obj[], field: (name: unknown) => string, started: boolean | undefined) =>
      list.map((s, i) => {
        if (!runningOf(s)) return s;
        runtime?.stop(String(s['containerID']), nowMs);
        events.push([field(s['name']), 'Normal', 'Killing', `Stopping container ${s['name']}`]);
        return stoppedStatus(specs[i]!, s, now, started);
      });
    // As the kubelet's termination ordering: the ephemeral containers with the containers, then the sidecars last to first.
    const finalEphemeral = completed ? stop(ephemeral, objectsOf(spec['ephemeralContainers']), ephemeralContainerField, undefined) : ephemeral;
    const finalInits = completed ? stop([...initStatuses].reverse(), [...inits].reverse(), initContainerField, false).reverse() : initStatuses;
    // GenerateContainersReadyCondition: sidecars first, then the containers.
    const unready = [
      ...inits.flatMap((c, i) => (isRestartableInitContainer(c) && finalInits[i]?.['ready'] !== true ? [String(c['name'])] : [])),
      ...next.filter((s) => s['ready'] !== true).map((s) => String(s['name'])),
    ];
    const nextStatus = podStatus(pod, {
      phase,
      conditions: podConditions(pod, { sandbox: !completed, initialized, unready, completed }, now, incompleteInits(inits, finalInits)),
      hostIP: node.internalIP,
      hostIPs,
      podIP,
      podIPs: [{ ip: podIP }],
      ...(inits.length ? { initContainerStatuses: finalInits } : {}),
      containerStatuses: sortedByName(next),
      ...(finalEphemeral.length ? { ephemeralContainerStatuses: sortedByName(finalEphemeral) } : {}),
    });
    // As the status manager: an unchanged status is not written again.
    if (JSON.stringify(nextStatus) !== JSON.stringify(statusOf(pod))) await writeStatus(pod, nextStatus);
    // The runtime keeps each container's current and previous run (`kubectl logs --previous`).
    const kept = new Set([...(['initContainerStatuses', 'containerStatuses', 'ephemeralContainerStatuses'] as const)].flatMap((k) =>
      objectsOf(nextStatus[k]).flatMap((c) => [c['containerID'], isObject(c['lastState']) && isObject(c['lastState']['terminated']) ? c['lastState']['terminated']['containerID'] : undefined])));
    runtime?.forgetPod(pod.metadata.uid ?? '', (id) => kept.has(id));
    // The probers and kills of runs the status no longer names (written: a later sync will not see them running).
    for (const [id, owner] of ownerOf) {
      if (owner !== pod.metadata.uid || kept.has(id)) continue;
      probers.delete(id);
      kills.delete(id);
      postStarts.delete(id);
      ownerOf.delete(id);
    }
    for (const [field, type, reason, message] of events) recorder.event(pod, type as 'Normal' | 'Warning', reason, message, field);
    if (completed) releaseIP(node.name, pod.metadata.uid);
    else if (wake !== Infinity) wakeAt(key, wake);
  }

  /**
   * killContainer from `at`: the preStop hook first, within the grace period (a failure is a
   * `FailedPreStopHook` event); then SIGTERM, on which a process that handles it exits (its code), and
   * SIGKILL (137) once the rest of the grace period is over, at least 2s (minimumGracePeriodInSeconds).
   * The runtime stops the process then. `withoutRuntime`: the code when no runtime runs processes.
   */
  async function stopContainer(pod: KubeObject, c: Obj, containerID: string, startedAt: string, graceSeconds: number, at: number, withoutRuntime: number, warn: (reason: string, message: string) => void): Promise<{ code: number; at: number }> {
    const hook = isObject(c['lifecycle']) && isObject(c['lifecycle']['preStop']) ? c['lifecycle']['preStop'] : undefined;
    let sigterm = at;
    if (hook && graceSeconds > 0) {
      const ran = await runLifecycleHandler(runtime, network, pod, c, containerID, startedAt, hook, at, graceSeconds * 1000);
      if (ran.failed !== undefined) warn('FailedPreStopHook', 'PreStopHook failed');
      sigterm = ran.at;
    }
    // executePreStopHook's whole seconds come off the grace period.
    const left = Math.max(graceSeconds - Math.floor((sigterm - at) / 1000), 2);
    if (!runtime) return { code: withoutRuntime, at: sigterm };
    return runtime.terminate(containerID, pod, String(c['name']), startedAt, sigterm, sigterm + left * 1000);
  }

  /**
   * killPod for a pod being deleted, planned when the kubelet first sees the deletion: the containers and
   * ephemeral containers are stopped at once, each within the deletion's grace period; the sidecars after
   * them, last to first, each once the one after it has ended, within what is left of it (at least 2s).
   */
  async function planStop(pod: KubeObject, recorder: EventRecorder, nowMs: number): Promise<Map<string, { code: number; at: number }>> {
    const spec = specOf(pod);
    const status = statusOf(pod);
    const grace = Number(pod.metadata.deletionGracePeriodSeconds ?? spec['terminationGracePeriodSeconds'] ?? 30);
    const plan = new Map<string, { code: number; at: number }>();
    const stop = async (c: Obj, was: Obj | undefined, field: string, at: number, graceSeconds: number) => {
      const running = runningOf(was);
      if (!running) return undefined;
      const containerID = String(was!['containerID']);
      recorder.event(pod, 'Normal', 'Killing', `Stopping container ${c['name']}`, field);
      const exit = await stopContainer(pod, c, containerID, String(running['startedAt']), graceSeconds, at, 0, (reason, message) => recorder.event(pod, 'Warning', reason, message, field));
      plan.set(containerID, exit);
      return exit;
    };
    let mainsEnd = nowMs;
    for (const [specs, statuses, field] of [[spec['containers'], status['containerStatuses'], containerField], [spec['ephemeralContainers'], status['ephemeralContainerStatuses'], ephemeralContainerField]] as const) {
      const previous = statusesByName(statuses);
      for (const c of objectsOf(specs)) {
        const exit = await stop(c, previous.get(String(c['name'])), field(c['name']), nowMs, grace);
        if (exit) mainsEnd = Math.max(mainsEnd, exit.at);
      }
    }
    const previousInits = statusesByName(status['initContainerStatuses']);
    let at = mainsEnd;
    for (const c of [...objectsOf(spec['initContainers'])].reverse().filter(isRestartableInitContainer)) {
      const exit = await stop(c, previousInits.get(String(c['name'])), initContainerField(c['name']), at, Math.max(grace - Math.floor((at - nowMs) / 1000), 2));
      if (exit) at = Math.max(at, exit.at);
    }
    return plan;
  }

  /**
   * A pod being deleted: its containers stopped as planStop plans (each status terminated once its process
   * has ended; the pod shows Terminating meanwhile), then the final status, then the status manager's delete
   * with grace period 0.
   */
  async function terminate(key: string, pod: KubeObject, node: SimulatedNode, recorder: EventRecorder): Promise<void> {
    const nowMs = deps.clock.now().getTime();
    const now = formatTime(new Date(nowMs));
    const uid = pod.metadata.uid ?? '';
    if (!isPodTerminal(pod) && statusOf(pod)['startTime']) {
      const spec = specOf(pod);
      const status = statusOf(pod);
      let plan = stopping.get(uid);
      if (!plan) stopping.set(uid, (plan = await planStop(pod, recorder, nowMs)));
      let pending = Infinity;
      const settle = (specs: Obj[], statuses: unknown, started: boolean | undefined, only: (c: Obj) => boolean, all: boolean) => {
        const previous = statusesByName(statuses);
        return specs.flatMap((c) => {
          const was = previous.get(String(c['name']));
          if (!only(c)) return was ? [was] : [];
          if (!was && !all) return [];
          if (isTerminatedStatus(was)) return [was!];
          const running = runningOf(was);
          const exit = running ? plan.get(String(was!['containerID'])) : undefined;
          if (!running || !exit) return [stoppedStatus(c, was, now, started)];
          const terminated = terminatedState({ exit }, running, was!['containerID'], nowMs);
          if (!terminated) {
            pending = Math.min(pending, exit.at);
            return [was!];
          }
          return [{ ...was!, state: { terminated }, ready: false, ...(started === undefined ? {} : { started }) }];
        });
      };
      const next = settle(objectsOf(spec['containers']), status['containerStatuses'], false, () => true, true);
      const ephemeral = settle(objectsOf(spec['ephemeralContainers']), status['ephemeralContainerStatuses'], undefined, () => true, false);
      const initStatuses = settle(objectsOf(spec['initContainers']), status['initContainerStatuses'], false, isRestartableInitContainer, false);
      const statuses = {
        ...(initStatuses.length ? { initContainerStatuses: initStatuses } : {}),
        containerStatuses: sortedByName(next),
        ...(ephemeral.length ? { ephemeralContainerStatuses: sortedByName(ephemeral) } : {}),
      };
      if (pending !== Infinity) {
        // Terminating: what has ended so far, and a look again at the next end.
        const during = { ...status, ...statuses };
        if (JSON.stringify(during) !== JSON.stringify(status)) await writeStatus(pod, during);
        wakeAt(key, pending);
        return;
      }
      const succeeded = next.every((s) => ((stateOf(s)['terminated'] as Obj)['exitCode'] ?? 1) === 0);
      await writeStatus(pod, podStatus(pod, {
        phase: succeeded ? 'Succeeded' : 'Failed',
        conditions: podConditions(pod, { sandbox: false, initialized: true, unready: [], completed: true }, now),
        ...statuses,
      }));
      return; // The write brings the pod back for its delete.
    }
    stopping.delete(uid);
    releaseIP(node.name, pod.metadata.uid);
    // Sent once: a pod held by finalizers keeps its zero grace period until they go.
    if (pod.metadata.deletionGracePeriodSeconds === 0) return;
    // Finalizers (a Job's tracking one) may hold it: the delete then waits for them, as in kube.
    await pods.delete(pod.metadata.namespace!, pod.metadata.name!, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } });
  }

  const running = watchInto(deps, queue, pods, [
    {
      store: nodeStore,
      // A node's change (its kubelet started again): its pods are looked at anew.
      keysFor: (e) => [...(podsByNode.get(e.kv.key.slice(nodeStore.prefix.length)) ?? [])],
    },
  ]);
  // Input to a process (attach) may end it: its pod is looked at again.
  const unsubscribe = runtime?.onInput((namespace, name) => queue.add(`${namespace}/${name}`));
  return {
    idle: () => running.idle(),
    stop() {
      stopped.abort();
      unsubscribe?.();
      running.stop();
    },
  };
}
