/**
 * What the Logs view asks for, as `kubectl logs` asks it: which containers a
 * pod's log can be read from and which one kubectl reads when none is named
 * (the `kubectl.kubernetes.io/default-container` annotation's choice when the
 * pod has that container, else the first container), the pods/log URL with
 * kubectl's query parameters, and how a failure is printed.
 */
import { arr, field, record, str } from '../../../../core/printers/format';
import type { KubeObject, Status } from '../../../api';

/** The annotation `kubectl logs`, `exec` and `attach` read the default container from (KEP-2227). */
export const DEFAULT_CONTAINER_ANNOTATION = 'kubectl.kubernetes.io/default-container';

export type LogContainerKind = 'container' | 'ephemeral' | 'init';

export interface LogContainer {
  name: string;
  kind: LogContainerKind;
}

/** The statuses field that reports on each kind of container. */
const STATUSES: Record<LogContainerKind, string> = { container: 'containerStatuses', ephemeral: 'ephemeralContainerStatuses', init: 'initContainerStatuses' };

/**
 * Every container of the pod in kubectl's order (AllContainerNames:
 * containers, ephemeral containers, init containers), with the one `kubectl
 * logs` reads by default moved first.
 */
export function logContainers(pod: KubeObject): LogContainer[] {
  const spec = record(pod['spec']);
  const named = (list: unknown, kind: LogContainerKind): LogContainer[] => arr(list).map((c) => ({ name: str(record(c)['name']), kind }));
  const all = [...named(spec['containers'], 'container'), ...named(spec['ephemeralContainers'], 'ephemeral'), ...named(spec['initContainers'], 'init')];
  const chosen = defaultLogContainer(pod);
  const first = all.findIndex((c) => c.name === chosen);
  return first <= 0 ? all : [all[first]!, ...all.slice(0, first), ...all.slice(first + 1)];
}

/** kubectl logs' container when none is named: the annotation's, if the pod has such a container, else the first container ('' without any). */
export function defaultLogContainer(pod: KubeObject): string {
  const spec = record(pod['spec']);
  const annotated = pod.metadata?.annotations?.[DEFAULT_CONTAINER_ANNOTATION] ?? '';
  const names = ['containers', 'initContainers', 'ephemeralContainers'].flatMap((k) => arr(spec[k]).map((c) => str(record(c)['name'])));
  if (annotated && names.includes(annotated)) return annotated;
  return str(field(spec, 'containers', 0, 'name'));
}

/** How the choice reads in the picker: `name`, `name (ephem)` or `name (init)`, as kubectl lists them. */
export function containerLabel(c: LogContainer): string {
  return c.kind === 'container' ? c.name : `${c.name} (${c.kind === 'init' ? 'init' : 'ephem'})`;
}

/** The kubelet's status for a container of the pod, whichever kind it is. */
export function containerStatus(pod: KubeObject, container: LogContainer): Record<string, unknown> | undefined {
  const found = arr(record(pod['status'])[STATUSES[container.kind]]).find((s) => str(record(s)['name']) === container.name);
  return found === undefined ? undefined : record(found);
}

/**
 * Which runs of the container a log request would read: its runtime id,
 * restart count and the last run that ended (what `previous` reads; it moves
 * when an exit reported terminated turns into the wait before the restart).
 * When it changes the view asks again, so the log shown is the run the pod reports.
 */
export function containerRun(pod: KubeObject, container: LogContainer): string {
  const s = containerStatus(pod, container);
  if (!s) return '';
  const last = str(field(s, 'lastState', 'terminated', 'containerID'));
  return `${str(s['containerID'])}#${String(s['restartCount'] ?? 0)}${last ? `#${last}` : ''}`;
}

/** Follow is on by default unless the container has ended for good (a completed init container, a finished pod's). */
export function followByDefault(pod: KubeObject, container: LogContainer): boolean {
  const s = containerStatus(pod, container);
  return field(s, 'state', 'terminated') === undefined;
}

export interface PodLogOptions {
  container: string;
  previous: boolean;
  timestamps: boolean;
  follow: boolean;
  /** The last lines only (`--tail`); undefined for all of them. */
  tailLines?: number;
}

/** GET pods/log with the parameters kubectl sets for its flags (a false flag is left out, as kubectl leaves it). */
export function podLogPath(namespace: string, name: string, options: PodLogOptions): string {
  const query = new URLSearchParams({ container: options.container });
  if (options.follow) query.set('follow', 'true');
  if (options.previous) query.set('previous', 'true');
  if (options.timestamps) query.set('timestamps', 'true');
  if (options.tailLines !== undefined) query.set('tailLines', String(options.tailLines));
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}/log?${query}`;
}

/** A `--tail` value typed by the user: a whole number of lines, or undefined (all lines) for an empty or negative one, as kubectl's -1. */
export function parseTailLines(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^-?\d+$/.test(trimmed)) return undefined;
  const n = Number(trimmed);
  return n < 0 ? undefined : n;
}

/** How kubectl prints a Status it got back: `Error from server (BadRequest): <message>`, without the parentheses when it has no reason. */
export function serverErrorText(status: Status): string {
  return status.reason ? `Error from server (${status.reason}): ${status.message ?? ''}` : `Error from server: ${status.message ?? ''}`;
}
