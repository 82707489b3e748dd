/**
 * The kubelet's lifecycle handler runner (pkg/kubelet/lifecycle/handlers.go) for postStart and preStop
 * hooks: an exec in the container (the runtime's ExecSync), an HTTP GET to the pod, or a sleep. It says
 * when the hook ended and, when it failed, the runner's message (what PostStartHookError shows).
 */
import { isObject, type KubeObject } from '../api/types';
import { statusOf } from '../controllers/controllerUtils';
import type { ClusterNetwork } from './clusterNetwork';
import type { ContainerRuntime } from './containerRuntime';
import { runProbe } from './prober';

type Obj = Record<string, unknown>;

/** Runs the hook at `at`; the kubelet waits for it at most limitMs. */
export async function runLifecycleHandler(runtime: ContainerRuntime | undefined, network: ClusterNetwork | undefined, pod: KubeObject, c: Obj, containerID: string, startedAt: string, hook: Obj, at: number, limitMs: number): Promise<{ at: number; failed?: string }> {
  const where = `for Container ${JSON.stringify(String(c['name']))} in Pod ${JSON.stringify(`${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`)}`;
  if (isObject(hook['sleep'])) return { at: at + Math.min(Number(hook['sleep']['seconds'] ?? 0) * 1000, limitMs) };
  if (isObject(hook['exec'])) {
    if (!runtime) return { at };
    const argv = Array.isArray(hook['exec']['command']) ? hook['exec']['command'].map(String) : [];
    const r = await runtime.execSync(containerID, pod, String(c['name']), startedAt, argv, at, limitMs);
    if ('timedOut' in r) return { at: at + limitMs };
    const failure = (error: string, output: string) => `Exec lifecycle hook ([${argv.join(' ')}]) ${where} failed - error: ${error}, message: ${JSON.stringify(output)}`;
    if ('error' in r) return { at, failed: failure(r.error, '') };
    const ended = Math.min(r.at ?? at, at + limitMs);
    if (r.exitCode !== 0) return { at: ended, failed: failure(`command '${argv.join(' ')}' exited with ${r.exitCode}: ${r.output}`, r.output) };
    return { at: ended };
  }
  if (isObject(hook['httpGet'])) {
    const r = runProbe(network, pod, String(statusOf(pod)['podIP'] ?? ''), c, { httpGet: hook['httpGet'] }, at);
    // A lifecycle HTTP hook fails only when no answer comes: any status code is an answer.
    if (r.ok || / statuscode: \d+$/.test(r.message)) return { at };
    return { at, failed: `HTTP lifecycle hook (${String(hook['httpGet']['path'] ?? '')}) ${where} failed - error: ${r.message}` };
  }
  return { at };
}
