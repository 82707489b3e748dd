/**
 * A Job's podFailurePolicy matched against a failed pod
 * (pkg/controller/job/pod_failure_policy.go): the rules in order, the first
 * whose onExitCodes (a terminated container, init containers after the
 * others, with a non-zero exit code In or NotIn the values) or
 * onPodConditions (a condition of that type and status) matches decides.
 */
import { isObject, objectsOf, type KubeObject } from '../api/types';
import { specOf, statusOf } from './controllerUtils';

type Obj = Record<string, unknown>;
export type PodFailurePolicyAction = 'FailJob' | 'FailIndex' | 'Ignore' | 'Count';

export interface PolicyMatch {
  /** The Job's failure message, for FailJob. */
  failJobMessage?: string;
  /** Whether the failure counts against backoffLimit (not for Ignore). */
  countFailed: boolean;
  action?: PodFailurePolicyAction;
}


function matchingContainer(statuses: Obj[], req: Obj): { name: string; exitCode: number } | undefined {
  const values = Array.isArray(req['values']) ? (req['values'] as unknown[]) : [];
  for (const cs of statuses) {
    const state = isObject(cs['state']) ? cs['state'] : {};
    const terminated = isObject(state['terminated']) ? state['terminated'] : undefined;
    if (!terminated) continue;
    if (typeof req['containerName'] === 'string' && req['containerName'] !== cs['name']) continue;
    const exitCode = Number(terminated['exitCode'] ?? 0);
    if (exitCode === 0) continue;
    const listed = values.includes(exitCode);
    if ((req['operator'] === 'In' && listed) || (req['operator'] === 'NotIn' && !listed)) return { name: String(cs['name'] ?? ''), exitCode };
  }
  return undefined;
}

/** matchPodFailurePolicy; no policy or no matching rule counts the failure. */
export function matchPodFailurePolicy(job: KubeObject, pod: KubeObject): PolicyMatch {
  const policy = specOf(job)['podFailurePolicy'];
  if (!isObject(policy)) return { countFailed: true };
  const status = statusOf(pod);
  const where = `${pod.metadata.namespace}/${pod.metadata.name}`;
  for (const [index, rule] of objectsOf(policy['rules']).entries()) {
    const action = rule['action'] as PodFailurePolicyAction;
    let matched: string | undefined;
    if (isObject(rule['onExitCodes'])) {
      const c = matchingContainer(objectsOf(status['containerStatuses']), rule['onExitCodes']) ?? matchingContainer(objectsOf(status['initContainerStatuses']), rule['onExitCodes']);
      if (c) matched = `Container ${c.name} for pod ${where} failed with exit code ${c.exitCode} matching ${action} rule at index ${index}`;
    } else if (Array.isArray(rule['onPodConditions'])) {
      const patterns = objectsOf(rule['onPodConditions']);
      const condition = objectsOf(status['conditions']).find((c) => patterns.some((p) => p['type'] === c['type'] && (p['status'] ?? 'True') === c['status']));
      if (condition) matched = `Pod ${where} has condition ${String(condition['type'])} matching ${action} rule at index ${index}`;
    }
    if (matched === undefined) continue;
    switch (action) {
      case 'Ignore':
        return { countFailed: false, action };
      case 'FailIndex':
      case 'Count':
        return { countFailed: true, action };
      case 'FailJob':
        return { failJobMessage: matched, countFailed: true, action };
    }
  }
  return { countFailed: true };
}
