/**
 * The Upgrade check panel's request and reading of the answer: manifests
 * posted as an upgrade.kubesim.dev RemovedAPICheck, and the converted
 * objects joined back into one YAML stream.
 */
import { stringify } from 'yaml';
import type { ObjectReport } from '../../../core/upgrade/removedApis';

export const REMOVED_API_CHECKS_PATH = '/apis/upgrade.kubesim.dev/v1alpha1/removedapichecks';

/** One object's verdict, as the server's RemovedAPICheck status carries it. */
export type { ObjectReport };

export interface RemovedApiCheck {
  apiVersion: 'upgrade.kubesim.dev/v1alpha1';
  kind: 'RemovedAPICheck';
  spec: { manifests: string; targetVersion?: string };
  status?: { targetVersion: string; objects: ObjectReport[]; errors: string[] };
}

export function buildCheck(manifests: string, targetVersion: string): RemovedApiCheck {
  const spec: RemovedApiCheck['spec'] = { manifests };
  if (targetVersion.trim()) spec.targetVersion = targetVersion.trim();
  return { apiVersion: 'upgrade.kubesim.dev/v1alpha1', kind: 'RemovedAPICheck', spec };
}

/** The objects that have a mechanical conversion, as one multi-document YAML. */
export function convertedYaml(objects: readonly ObjectReport[]): string {
  return objects.filter((o) => o.converted).map((o) => stringify(o.converted)).join('---\n');
}

/** What the report line says about an object's version. */
export function verdict(o: ObjectReport): string {
  if (o.removed) return `removed in ${o.removedIn}`;
  if (o.removedIn && !o.deprecatedIn) return `will be removed in ${o.removedIn}`;
  if (o.deprecatedIn) return `deprecated since ${o.deprecatedIn}${o.removedIn ? `, removed in ${o.removedIn}` : ''}`;
  return 'served';
}

export const EXAMPLE_MANIFEST = `apiVersion: extensions/v1beta1
kind: Ingress
metadata:
  name: web
spec:
  backend:
    serviceName: web
    servicePort: 80
---
apiVersion: batch/v1beta1
kind: CronJob
metadata:
  name: nightly
spec:
  schedule: "0 0 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: c, image: busybox}]
`;
