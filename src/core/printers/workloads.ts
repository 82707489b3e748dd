/**
 * Workload controllers: deployments, replica sets, stateful sets, daemon
 * sets, jobs, cron jobs, replication controllers and controller revisions.
 * Their wide columns list the pod template's containers and images and the
 * selector.
 */

import { ageColumn, column, CONTAINERS_DESCRIPTION, doc, IMAGES_DESCRIPTION, nameColumn, wide } from './columns';
import { humanDuration, parseTimestamp, timestampSince } from './duration';
import {
  arr,
  boolPtr,
  containerCells,
  field,
  formatLabels,
  formatLabelSelector,
  labelSelectorString,
  num,
  str,
} from './format';
import type { OwnerReference } from '../api/types';
import type { KubeObject, Printer } from './types';

const name = (obj: KubeObject): string => str(obj.metadata?.name);
const age = (obj: KubeObject, now: Date): string => timestampSince(obj.metadata?.creationTimestamp, now);
/** spec.replicas is defaulted to 1 on create, so an absent value reads as 1. */
const desiredReplicas = (obj: KubeObject): number => num(field(obj, 'spec', 'replicas'), 1);
const templateContainers = (obj: KubeObject): [string, string] =>
  containerCells(field(obj, 'spec', 'template', 'spec', 'containers'));

const readyDescription = 'Number of the pod with ready state';

export const deploymentPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Ready', 'string', readyDescription),
    column('Up-to-date', 'string', doc('apps.v1.DeploymentStatus.updatedReplicas')),
    column('Available', 'string', doc('apps.v1.DeploymentStatus.availableReplicas')),
    ageColumn(),
    wide('Containers', 'string', CONTAINERS_DESCRIPTION),
    wide('Images', 'string', IMAGES_DESCRIPTION),
    wide('Selector', 'string', doc('apps.v1.DeploymentSpec.selector')),
  ],
  row(obj, { now }) {
    const status = field(obj, 'status');
    const [containers, images] = templateContainers(obj);
    const selector = labelSelectorString(field(obj, 'spec', 'selector'));
    return {
      cells: [
        name(obj),
        `${num(field(status, 'readyReplicas'))}/${desiredReplicas(obj)}`,
        num(field(status, 'updatedReplicas')),
        num(field(status, 'availableReplicas')),
        age(obj, now),
        containers,
        images,
        selector === undefined ? '<invalid>' : selector,
      ],
    };
  },
};

/**
 * ReplicaSets and ReplicationControllers print the same columns; they differ
 * in where their docs come from and in the selector's shape.
 */
function replicaControllerPrinter(docPrefix: string, selector: (value: unknown) => string): Printer {
  return {
    columns: [
      nameColumn(),
      column('Desired', 'integer', doc(`${docPrefix}Spec.replicas`)),
      column('Current', 'integer', doc(`${docPrefix}Status.replicas`)),
      column('Ready', 'integer', doc(`${docPrefix}Status.readyReplicas`)),
      ageColumn(),
      wide('Containers', 'string', CONTAINERS_DESCRIPTION),
      wide('Images', 'string', IMAGES_DESCRIPTION),
      wide('Selector', 'string', doc(`${docPrefix}Spec.selector`)),
    ],
    row(obj, { now }) {
      const [containers, images] = templateContainers(obj);
      return {
        cells: [
          name(obj),
          desiredReplicas(obj),
          num(field(obj, 'status', 'replicas')),
          num(field(obj, 'status', 'readyReplicas')),
          age(obj, now),
          containers,
          images,
          selector(field(obj, 'spec', 'selector')),
        ],
      };
    },
  };
}

export const replicaSetPrinter = replicaControllerPrinter('apps.v1.ReplicaSet', formatLabelSelector);

// A replication controller's selector is a plain label map.
export const replicationControllerPrinter = replicaControllerPrinter('core.v1.ReplicationController', formatLabels);

export const statefulSetPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Ready', 'string', readyDescription),
    ageColumn(),
    wide('Containers', 'string', CONTAINERS_DESCRIPTION),
    wide('Images', 'string', IMAGES_DESCRIPTION),
  ],
  row(obj, { now }) {
    const [containers, images] = templateContainers(obj);
    return {
      cells: [
        name(obj),
        `${num(field(obj, 'status', 'readyReplicas'))}/${desiredReplicas(obj)}`,
        age(obj, now),
        containers,
        images,
      ],
    };
  },
};

export const daemonSetPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Desired', 'integer', doc('apps.v1.DaemonSetStatus.desiredNumberScheduled')),
    column('Current', 'integer', doc('apps.v1.DaemonSetStatus.currentNumberScheduled')),
    column('Ready', 'integer', doc('apps.v1.DaemonSetStatus.numberReady')),
    column('Up-to-date', 'integer', doc('apps.v1.DaemonSetStatus.updatedNumberScheduled')),
    column('Available', 'integer', doc('apps.v1.DaemonSetStatus.numberAvailable')),
    column('Node Selector', 'string', doc('core.v1.PodSpec.nodeSelector')),
    ageColumn(),
    wide('Containers', 'string', CONTAINERS_DESCRIPTION),
    wide('Images', 'string', IMAGES_DESCRIPTION),
    wide('Selector', 'string', doc('apps.v1.DaemonSetSpec.selector')),
  ],
  row(obj, { now }) {
    const status = field(obj, 'status');
    const [containers, images] = templateContainers(obj);
    return {
      cells: [
        name(obj),
        num(field(status, 'desiredNumberScheduled')),
        num(field(status, 'currentNumberScheduled')),
        num(field(status, 'numberReady')),
        num(field(status, 'updatedNumberScheduled')),
        num(field(status, 'numberAvailable')),
        formatLabels(field(obj, 'spec', 'template', 'spec', 'nodeSelector')),
        age(obj, now),
        containers,
        images,
        formatLabelSelector(field(obj, 'spec', 'selector')),
      ],
    };
  },
};

/** hasJobCondition: the first condition of the type decides. */
function hasJobCondition(obj: KubeObject, type: string): boolean {
  const condition = arr<{ type?: string; status?: string }>(field(obj, 'status', 'conditions')).find(
    (c) => c.type === type,
  );
  return condition?.status === 'True';
}

function jobStatus(obj: KubeObject): string {
  if (hasJobCondition(obj, 'Complete')) return 'Complete';
  if (hasJobCondition(obj, 'Failed')) return 'Failed';
  if (parseTimestamp(obj.metadata?.deletionTimestamp) !== undefined) return 'Terminating';
  if (hasJobCondition(obj, 'Suspended')) return 'Suspended';
  if (hasJobCondition(obj, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

function jobCompletions(obj: KubeObject): string {
  const succeeded = num(field(obj, 'status', 'succeeded'));
  const completions = field(obj, 'spec', 'completions');
  if (typeof completions === 'number') return `${succeeded}/${completions}`;
  const parallelism = num(field(obj, 'spec', 'parallelism'));
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(obj: KubeObject, now: Date): string {
  const start = parseTimestamp(field(obj, 'status', 'startTime'));
  if (start === undefined) return '';
  const completion = parseTimestamp(field(obj, 'status', 'completionTime'));
  return humanDuration((completion ?? now.getTime()) - start);
}

export const jobPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Status', 'string', 'Status of the job.'),
    column('Completions', 'string', doc('batch.v1.JobStatus.succeeded')),
    column('Duration', 'string', 'Time required to complete the job.'),
    ageColumn(),
    wide('Containers', 'string', CONTAINERS_DESCRIPTION),
    wide('Images', 'string', IMAGES_DESCRIPTION),
    wide('Selector', 'string', doc('batch.v1.JobSpec.selector')),
  ],
  row(obj, { now }) {
    const [containers, images] = templateContainers(obj);
    return {
      cells: [
        name(obj),
        jobStatus(obj),
        jobCompletions(obj),
        jobDuration(obj, now),
        age(obj, now),
        containers,
        images,
        formatLabelSelector(field(obj, 'spec', 'selector')),
      ],
    };
  },
};

export const cronJobPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Schedule', 'string', doc('batch.v1.CronJobSpec.schedule')),
    column('Timezone', 'string', doc('batch.v1.CronJobSpec.timeZone')),
    column('Suspend', 'boolean', doc('batch.v1.CronJobSpec.suspend')),
    column('Active', 'integer', doc('batch.v1.CronJobStatus.active')),
    column('Last Schedule', 'string', doc('batch.v1.CronJobStatus.lastScheduleTime')),
    ageColumn(),
    wide('Containers', 'string', CONTAINERS_DESCRIPTION),
    wide('Images', 'string', IMAGES_DESCRIPTION),
    wide('Selector', 'string', doc('batch.v1.JobSpec.selector')),
  ],
  row(obj, { now }) {
    const jobSpec = field(obj, 'spec', 'jobTemplate', 'spec');
    const lastSchedule = field(obj, 'status', 'lastScheduleTime');
    const timeZone = field(obj, 'spec', 'timeZone');
    const [containers, images] = containerCells(field(jobSpec, 'template', 'spec', 'containers'));
    return {
      cells: [
        name(obj),
        str(field(obj, 'spec', 'schedule')),
        typeof timeZone === 'string' ? timeZone : '<none>',
        boolPtr(field(obj, 'spec', 'suspend')),
        arr(field(obj, 'status', 'active')).length,
        lastSchedule === undefined || lastSchedule === null ? '<none>' : timestampSince(lastSchedule, now),
        age(obj, now),
        containers,
        images,
        formatLabelSelector(field(jobSpec, 'selector')),
      ],
    };
  },
};

/** GroupKind of an apiVersion/kind pair, lower-cased as `kind.group` (or `kind` for the core group). */
function groupKindName(ref: OwnerReference): string {
  const slash = ref.apiVersion.indexOf('/');
  const group = slash >= 0 ? ref.apiVersion.slice(0, slash) : '';
  return (group === '' ? ref.kind : `${ref.kind}.${group}`).toLowerCase();
}

export const controllerRevisionPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Controller', 'string', 'Controller of the object'),
    column('Revision', 'string', doc('apps.v1.ControllerRevision.revision')),
    ageColumn(),
  ],
  row(obj, { now }) {
    const controller = arr<OwnerReference>(obj.metadata?.ownerReferences).find((r) => r.controller === true);
    const controllerName = controller ? `${groupKindName(controller)}/${controller.name}` : '<none>';
    return { cells: [name(obj), controllerName, num(obj.revision), age(obj, now)] };
  },
};
