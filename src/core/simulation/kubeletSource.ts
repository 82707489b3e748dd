/**
 * What the simulated kubelets ask the API server for, beside the objects
 * they read: the namespace's Services (for a container's environment), the
 * pod's service account tokens, requested as the kubelet's token manager
 * does (a TokenRequest as system:node:<node>, bound to the pod) and kept
 * until 80% of their life; and the nodes' container runtime, whose
 * processes see what containerView.ts builds from those.
 */
import { objectsOf, type KubeObject } from '../api/types';
import { withUser } from '../http/request/context';
import type { CoreObjectGetter } from '../registry/core/podLocation';
import { newContainerRuntime, type RuntimeStart } from './containerRuntime';
import type { SimulatedKubeletSource } from './podExec';
import { containerArgv, containerFreeCommands, startProcess } from './containerProcess';
import { containerView, imagePath, podContainers, type ContainerView } from './containerView';
import { isOpaqueContainer, isUnknownImage, unknownImage } from './image';
import { controllerRefOf } from '../controllers/controllerUtils';
import { ClusterNetwork } from './clusterNetwork';
import { ProberResults } from './proberResults';
import type { ContainerFilesystem } from './containerFiles';

export interface KubeletSourceDeps {
  now(): Date;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  randomHex(length: number): string;
  get: CoreObjectGetter;
  /** Every object of a core resource in a namespace ('' for all). */
  list(resource: string, namespace: string): Promise<KubeObject[]>;
  /** The API server itself, for the kubelet's TokenRequests. */
  handle(request: Request): Promise<Response>;
}

export function newSimulatedKubeletSource(deps: KubeletSourceDeps): SimulatedKubeletSource {
  /** When this run of the host began: a container started before it is replayed up to here. */
  const hostStart = deps.now().getTime();
  const tokens = new Map<string, { token: string; refreshAt: number }>();
  async function serviceAccountToken(pod: KubeObject, audience: string | undefined, expirationSeconds: number): Promise<string> {
    const ns = pod.metadata.namespace ?? '';
    const spec = (pod['spec'] ?? {}) as Record<string, unknown>;
    const account = typeof spec['serviceAccountName'] === 'string' && spec['serviceAccountName'] ? spec['serviceAccountName'] : 'default';
    const key = `${pod.metadata.uid ?? ''}/${account}/${audience ?? ''}/${expirationSeconds}`;
    const now = deps.now().getTime();
    const cached = tokens.get(key);
    if (cached && now < cached.refreshAt) return cached.token;
    const body = { kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1', spec: { audiences: audience ? [audience] : null, expirationSeconds, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: pod.metadata.name, uid: pod.metadata.uid } } };
    const request = new Request(`https://kubernetes.default.svc/api/v1/namespaces/${encodeURIComponent(ns)}/serviceaccounts/${encodeURIComponent(account)}/token`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) });
    withUser(request, { username: `system:node:${String(spec['nodeName'] ?? '')}`, groups: ['system:nodes', 'system:authenticated'] });
    const response = await deps.handle(request);
    const out = (await response.json()) as { status?: { token?: string }; spec?: { expirationSeconds?: number }; message?: string };
    if (response.status !== 201 || !out.status?.token) throw new Error(`failed to fetch token: ${out.message ?? response.statusText}`);
    const granted = out.spec?.expirationSeconds ?? expirationSeconds;
    for (const [k, v] of tokens) if (v.refreshAt <= now) tokens.delete(k);
    tokens.set(key, { token: out.status.token, refreshAt: now + granted * 800 });
    return out.status.token;
  }

  const source: Omit<SimulatedKubeletSource, 'runtime'> = {
    now: deps.now,
    sleep: deps.sleep,
    randomHex: deps.randomHex,
    listPods: () => deps.list('pods', ''),
    listServices: (namespace) => deps.list('services', namespace),
    serviceAccountToken,
    network: new ClusterNetwork(),
    proberResults: new ProberResults(),
  };
  /** What a process sees that never looks (the unknown image's own, run with no command). */
  const emptyView: ContainerView = { container: '', env: [['PATH', imagePath]], files: new Map([['/bin/true', { type: 'file', content: new Uint8Array(), mode: 0o755 }]]), hostname: '', uid: 0, gid: 0, groups: [0], workingDir: '/', image: unknownImage };

  /** The container's process as the runtime starts it: its command over its image, seeing what the kubelet gives it. */
  async function startContainer(pod: KubeObject, name: string, startedAt: string, filesystem: (view: ContainerView) => ContainerFilesystem, replayed: boolean): Promise<RuntimeStart> {
    const container = podContainers(pod).find((c) => c['name'] === name) ?? {};
    const tty = container['tty'] === true;
    const opts = { stdin: container['stdin'] === true, tty, pid: 1, freeCommands: containerFreeCommands, ...(replayed ? { replayedUntil: hostStart } : {}) };
    const startMs = Date.parse(startedAt);
    // An image kubesim does not know may hold any program: with no command (or one it cannot run), its
    // process runs until stopped, as a server would, and completes at once where one is meant to end (an
    // init container, a Job's pod's containers; its sidecars run until stopped).
    const init = objectsOf((pod['spec'] as Record<string, unknown> | undefined)?.['initContainers']).find((c) => c['name'] === name);
    const completes = init ? init['restartPolicy'] !== 'Always' : controllerRefOf(pod)?.kind === 'Job';
    const opaque = (view: ContainerView, shown?: { argv: readonly string[]; pid: number }) => startProcess(view, completes ? ['true'] : [], startMs, { ...opts, ...(shown ? { shownAs: shown.argv, pid: shown.pid } : {}) });
    if (isOpaqueContainer(container)) return opaque(emptyView);
    const view = await containerView({ ...source, get: deps.get }, pod, name, { tty, startedAt });
    const argv = containerArgv(container, view.image, new Map(view.env));
    const files = filesystem(view);
    // pid 1 unless the run shares a PID namespace (shareProcessNamespace, a debug container's target).
    const pid = files.mainPid();
    const started = startProcess(view, argv, startMs, { ...opts, pid, files });
    // ps shows the command it was given, which kubesim cannot run.
    if (isUnknownImage(view.image) && (!argv.length || !started.started)) return opaque(view, { argv, pid });
    return started;
  }
  const viewOf = (pod: KubeObject, name: string, startedAt: string) => containerView({ ...source, get: deps.get }, pod, name, { startedAt });
  return { ...source, runtime: newContainerRuntime(startContainer, viewOf) };
}
