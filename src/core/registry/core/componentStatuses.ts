/**
 * componentstatuses (v1 ComponentStatus, deprecated since 1.19): nothing is
 * stored. kube-apiserver's REST storage (pkg/registry/core/componentstatus)
 * probes every component on each get and list and answers what it found:
 * `controller-manager` (https://127.0.0.1:10257/healthz), `scheduler`
 * (https://127.0.0.1:10259/healthz) and `etcd-N`, one per storage backend
 * configuration. Only get and list are served (the registry lists no watch).
 *
 * Here the probes ask what really runs in this server: the controller
 * manager's loop, the simulated nodes' scheduler, and the store (etcd, or the
 * embedded store playing its part, still named etcd-0 as clients expect).
 */
import type { KubeObject } from '../../api/types';
import { StatusError } from '../../errors';
import { negotiateOutput } from '../../http/negotiation';
import { writeObject } from '../../http/responseWriter';
import { protobufFor } from '../../http/handlers/common';
import type { RequestScope } from '../../http/handlers/scope';
import { selectionFrom } from '../../http/handlers/selection';
import { transformList, transformObject } from '../../http/handlers/transform';

/** A Healthy condition as DoServerCheck reports it (probe.Result mapped to True, False or Unknown). */
export interface ComponentProbeResult {
  status: 'True' | 'False' | 'Unknown';
  message?: string;
  error?: string;
}

export interface ComponentProbe {
  name: string;
  check(): Promise<ComponentProbeResult>;
}

/** The secure ports kube-apiserver probes (ports.KubeControllerManagerPort, kube-scheduler's default port). */
export const controllerManagerPort = 10257;
export const schedulerPort = 10259;

/**
 * An HttpServer probe of a component on 127.0.0.1: `ok` from /healthz while it
 * runs; otherwise the HTTP prober turns the dial error into a Failure whose
 * message is the error (the condition's error field stays empty, as upstream).
 */
export function localHealthzProbe(name: string, port: number, running: () => boolean): ComponentProbe {
  return {
    name,
    async check() {
      if (running()) return { status: 'True', message: 'ok' };
      return { status: 'False', message: `Get "https://127.0.0.1:${port}/healthz": dial tcp 127.0.0.1:${port}: connect: connection refused` };
    },
  };
}

/** An EtcdServer probe: `ok` when the store answers a read, else a Failure carrying the store's error. */
export function storageProbe(name: string, storage: { currentRevision(): Promise<number> }): ComponentProbe {
  return {
    name,
    async check() {
      try {
        await storage.currentRevision();
        return { status: 'True', message: 'ok' };
      } catch (e) {
        return { status: 'False', error: e instanceof Error ? e.message : String(e) };
      }
    },
  };
}

/** getComponentStatus: one Healthy condition; the object has a name and nothing else (creationTimestamp null). */
export async function componentStatusOf(probe: ComponentProbe): Promise<KubeObject> {
  const result = await probe.check();
  const condition: Record<string, string> = { type: 'Healthy', status: result.status };
  if (result.message) condition['message'] = result.message;
  if (result.error) condition['error'] = result.error;
  return { kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name: probe.name, creationTimestamp: null } as unknown as KubeObject['metadata'], conditions: [condition] };
}

/** GET of /api/v1/componentstatuses and of one of them. */
export async function serveComponentStatuses(scope: RequestScope, probes: readonly ComponentProbe[]): Promise<Response> {
  const { request, url, info } = scope;
  const choice = negotiateOutput(request.headers.get('accept'), { protobuf: protobufFor(scope), transforms: true, url, userAgent: request.headers.get('user-agent') });
  const options = { pretty: choice.pretty, warnings: scope.warnings };
  if (info.verb === 'get') {
    const probe = probes.find((p) => p.name === info.name);
    // A plain error in the REST storage: the handler answers 500 with its text and no reason.
    if (!probe) throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `Component not found: ${info.name}`, reason: '', code: 500 });
    return writeObject(choice.serializer, 200, transformObject(await componentStatusOf(probe), choice.representation, scope), options);
  }
  // Selectors are applied although the objects carry no labels (a label selector selects none).
  const selection = selectionFrom(url, scope.type);
  const items = (await Promise.all(probes.map(componentStatusOf))).filter((o) => !selection.predicate || selection.predicate(o));
  const list = { kind: 'ComponentStatusList', apiVersion: 'v1', metadata: {}, items };
  return writeObject(choice.serializer, 200, transformList(list, choice.representation, scope), options);
}
