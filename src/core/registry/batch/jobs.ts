/**
 * Job and CronJob strategies (pkg/registry/batch/job, .../cronjob):
 * SetDefaults_Job / SetDefaults_CronJob, pod template defaults (restartPolicy
 * defaults to Always as for any PodSpec, which Job validation then refuses),
 * and the Job selector generated from the uid unless manualSelector.
 */
import { isObject, type KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';
import { defaultTemplate } from '../core/podSpec';

type Obj = Record<string, unknown>;
const child = (o: Obj, k: string): Obj => (isObject(o[k]) ? o[k] : (o[k] = {}));

function defaultJob(obj: KubeObject): void {
  defaultTemplate(obj, ['spec', 'template', 'spec']);
  const spec = child(obj, 'spec');
  if (spec['completions'] === undefined && spec['parallelism'] === undefined) spec['completions'] = 1;
  spec['parallelism'] ??= 1;
  spec['backoffLimit'] ??= spec['backoffLimitPerIndex'] !== undefined ? 2147483647 : 6;
  spec['completionMode'] ??= 'NonIndexed';
  spec['suspend'] ??= false;
  spec['podReplacementPolicy'] ??= spec['podFailurePolicy'] !== undefined ? 'Failed' : 'TerminatingOrFailed';
}

/** generateSelector: job-name and controller-uid labels on the template, the selector on controller-uid. */
function generateSelector(obj: KubeObject): void {
  const spec = child(obj, 'spec');
  const template = child(spec, 'template');
  const meta = child(template, 'metadata');
  // The Job's own labels default to the template's (SetDefaults_Job shares the map, so they get the generated ones too).
  const shareLabels = isObject(meta['labels']) && (!obj.metadata.labels || Object.keys(obj.metadata.labels).length === 0);
  const labels = child(meta, 'labels');
  const name = obj.metadata.name ?? '';
  const uid = obj.metadata.uid ?? '';
  labels['job-name'] ??= name;
  labels['batch.kubernetes.io/job-name'] ??= name;
  labels['controller-uid'] ??= uid;
  labels['batch.kubernetes.io/controller-uid'] ??= uid;
  const selector = child(spec, 'selector');
  const matchLabels = child(selector, 'matchLabels');
  matchLabels['batch.kubernetes.io/controller-uid'] ??= uid;
  if (shareLabels) obj.metadata.labels = { ...(labels as Record<string, string>) };
}

export const jobStrategy: Partial<ResourceStrategy> = {
  prepareForCreate(obj) {
    defaultJob(obj);
    if (isObject(obj['spec']) && obj['spec']['manualSelector'] !== true) generateSelector(obj);
  },
  prepareForUpdate: (obj) => defaultJob(obj),
};

function defaultCronJob(obj: KubeObject): void {
  defaultTemplate(obj, ['spec', 'jobTemplate', 'spec', 'template', 'spec']);
  const spec = child(obj, 'spec');
  spec['concurrencyPolicy'] ??= 'Allow';
  spec['suspend'] ??= false;
  spec['successfulJobsHistoryLimit'] ??= 3;
  spec['failedJobsHistoryLimit'] ??= 1;
}

export const cronJobStrategy: Partial<ResourceStrategy> = {
  prepareForCreate: defaultCronJob,
  prepareForUpdate: (obj) => defaultCronJob(obj),
};
