/**
 * Real kubectl against the Node host: `kubectl create -f` of each invalid
 * workload manifest prints `The <Kind> "<name>" is invalid:` and
 * kube-apiserver's causes, exactly as kubectl prints a 422 from a real cluster.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost();
});
afterAll(async () => {
  await t?.stop();
});

const podYaml = (name: string, containers: string, extra = '') => `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
${extra}  containers:
${containers}`;

const deploymentYaml = (name: string, spec: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
${spec}`;

const dns1123 = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

const cases: [string, string, string][] = [
  ['a Deployment whose selector does not match its template labels', deploymentYaml('web', `  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: c, image: nginx}]}
`), 'The Deployment "web" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"api"}: `selector` does not match template `labels`\n'],
  ['a Deployment with negative replicas', deploymentYaml('neg', `  replicas: -1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
`), 'The Deployment "neg" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0\n'],
  ['a Pod with two containers of the same name', podYaml('dup', '  - {name: c, image: nginx}\n  - {name: c, image: busybox}\n'),
    'The Pod "dup" is invalid: spec.containers[1].name: Duplicate value: "c"\n'],
  ['a Pod with restartPolicy Sometimes', podYaml('sometimes', '  - {name: c, image: nginx}\n', '  restartPolicy: Sometimes\n'),
    'The Pod "sometimes" is invalid: spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"\n'],
  ['a Pod with container port 99999', podYaml('port', '  - {name: c, image: nginx, ports: [{containerPort: 99999}]}\n'),
    'The Pod "port" is invalid: spec.containers[0].ports[0].containerPort: Invalid value: 99999: must be between 1 and 65535, inclusive\n'],
  ['a Pod with CPU requests above limits', podYaml('cpu', '  - name: c\n    image: nginx\n    resources: {requests: {cpu: "2"}, limits: {cpu: 500m}}\n'),
    'The Pod "cpu" is invalid: spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 500m\n'],
  ['a Pod whose volumeMount names no volume', podYaml('mount', '  - name: c\n    image: nginx\n    volumeMounts: [{name: data, mountPath: /data}]\n'),
    'The Pod "mount" is invalid: spec.containers[0].volumeMounts[0].name: Not found: "data"\n'],
  ['a Pod with an invalid container name and no image: both errors', podYaml('both', '  - {name: Web}\n'),
    `The Pod "both" is invalid: \n* spec.containers[0].name: Invalid value: "Web": ${dns1123}\n* spec.containers[0].image: Required value\n`],
  ['a Job with restartPolicy Always', `apiVersion: batch/v1
kind: Job
metadata: {name: job}
spec:
  template:
    spec:
      restartPolicy: Always
      containers: [{name: c, image: busybox}]
`, 'The Job "job" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"\n'],
  ['a CronJob with schedule "not a cron"', `apiVersion: batch/v1
kind: CronJob
metadata: {name: cron}
spec:
  schedule: not a cron
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: c, image: busybox}]
`, 'The CronJob "cron" is invalid: spec.schedule: Invalid value: "not a cron": expected exactly 5 fields, found 3: [not a cron]\n'],
];

describe('kubectl create -f of invalid workloads', () => {
  for (const [what, manifest, stderr] of cases) {
    it(`API-ERR-022: ${what}`, async () => {
      const r = await t.kubectl(['create', '-f', '-'], manifest);
      expect(r.stderr).toBe(stderr);
      expect(r.code).toBe(1);
    });
  }

  it('API-VER-158: kubectl apply of a changed Deployment selector prints the immutable field error', async () => {
    const manifest = deploymentYaml('sel', `  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web, tier: a}}
    spec: {containers: [{name: c, image: nginx}]}
`);
    expect((await t.kubectl(['apply', '-f', '-'], manifest)).code).toBe(0);
    const r = await t.kubectl(['apply', '-f', '-'], manifest.replace('matchLabels: {app: web}', 'matchLabels: {app: web, tier: a}'));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'The Deployment "sel" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "tier":"a"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable\n',
    );
  });

  it('the workloads kubectl generates itself are valid: run, create deployment, job, cronjob, job --from', async () => {
    for (const args of [
      ['run', 'gen-pod', '--image=nginx', '--port=80', '--env=A=b', '--labels=app=gen'],
      ['create', 'deployment', 'gen-deploy', '--image=nginx', '--replicas=2', '--port=80'],
      ['create', 'job', 'gen-job', '--image=busybox', '--', 'echo', 'hi'],
      ['create', 'cronjob', 'gen-cron', '--image=busybox', '--schedule=*/5 * * * *', '--', 'date'],
      ['create', 'job', 'gen-from-cron', '--from=cronjob/gen-cron'],
    ]) {
      const r = await t.kubectl(args);
      expect(r.stderr, args.join(' ')).toBe('');
      expect(r.code).toBe(0);
    }
    const sel = await t.kubectl(['get', 'job', 'gen-job', '-o', 'jsonpath={.spec.selector.matchLabels}']);
    const uid = await t.kubectl(['get', 'job', 'gen-job', '-o', 'jsonpath={.metadata.uid}']);
    expect(JSON.parse(sel.stdout)).toEqual({ 'batch.kubernetes.io/controller-uid': uid.stdout });
  });

  it('kubectl set image changes a running Pod; kubectl replace of a changed spec prints the pod update error', async () => {
    expect((await t.kubectl(['run', 'upd', '--image=nginx'])).code).toBe(0);
    const set = await t.kubectl(['set', 'image', 'pod/upd', 'upd=nginx:1.27']);
    expect(set.stderr).toBe('');
    const got = await t.kubectl(['get', 'pod', 'upd', '-o', 'json']);
    const podJson = JSON.parse(got.stdout);
    expect(podJson.spec.containers[0].image).toBe('nginx:1.27');
    podJson.spec.restartPolicy = 'Never';
    const r = await t.kubectl(['replace', '-f', '-'], JSON.stringify(podJson));
    expect(r.code).toBe(1);
    expect(r.stderr.startsWith('The Pod "upd" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n')).toBe(true);
  });
});
