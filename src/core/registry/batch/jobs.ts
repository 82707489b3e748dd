/**
 * Job and CronJob strategies (pkg/registry/batch/job, .../cronjob):
 * SetDefaults_Job / SetDefaults_CronJob with pod template defaults
 * (restartPolicy defaults to Always as for any PodSpec, which Job validation
 * then refuses) as their defaulters, and the Job selector generated from the
 * uid unless manualSelector, once the create has its uid.
 */
import { jsonEqual } from '../../api/equality';
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
  // A pod failure policy's condition pattern without a status matches the condition being True.
  const rules = isObject(spec['podFailurePolicy']) ? spec['podFailurePolicy']['rules'] : undefined;
  for (const rule of Array.isArray(rules) ? rules : []) {
    if (!isObject(rule) || !Array.isArray(rule['onPodConditions'])) continue;
    for (const pattern of rule['onPodConditions']) if (isObject(pattern) && !pattern['status']) pattern['status'] = 'True';
  }
  // A Job without labels takes its template's (SetDefaults_Job).
  const template = isObject(spec['template']) ? spec['template'] : undefined;
  const labels = template && isObject(template['metadata']) ? template['metadata']['labels'] : undefined;
  if (isObject(labels) && (!obj.metadata.labels || Object.keys(obj.metadata.labels).length === 0)) obj.metadata.labels = { ...(labels as Record<string, string>) };
}

/** generateSelector: job-name and controller-uid labels on the template, the selector on controller-uid. */
function generateSelector(obj: KubeObject): void {
  const spec = child(obj, 'spec');
  const template = child(spec, 'template');
  const meta = child(template, 'metadata');
  // Labels the defaulter took from the template are the template's map in Go, so they get the generated ones too.
  const shareLabels = isObject(meta['labels']) && (!obj.metadata.labels || Object.keys(obj.metadata.labels).length === 0 || jsonEqual(obj.metadata.labels, meta['labels']));
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
  defaulter: defaultJob,
  prepareForCreate(obj) {
    if (isObject(obj['spec']) && obj['spec']['manualSelector'] !== true) generateSelector(obj);
  },
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
  defaulter: defaultCronJob,
};
